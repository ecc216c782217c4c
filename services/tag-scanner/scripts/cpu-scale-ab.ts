// A/B of the cpu scale (issue 21 §3): `npx tsx services/tag-scanner/scripts/cpu-scale-ab.ts [starts] [scans] [renderMs]`.
// Scans the 1 000/s benchmark workload (10 % of the reference core by definition) on fresh scanners and prints its
// cpu.average_percent scaled by the start's calibration and by the index the speedometer measured during its render
// (the report's), from the same scan: both from the scan log (`CPU calibrated`, `tag scanned` cpu_index).
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { createBrowserPool, createTagScanner } from "../src/index.ts";
import { benchmarkMix } from "../test/cpu-workload.ts";
import { tagJob } from "../test/helpers.ts";

const starts = Number(process.argv[2] ?? 3), per = Number(process.argv[3] ?? 3), renderMs = Number(process.argv[4] ?? 6000);
const rows: string[] = [];
for (let i = 0; i < starts; i++) {
  let startIndex = 0;
  let last: { index: number; samples: number } | undefined;
  type Fields = { benchmark_index?: number; cpu_index?: { index: number; samples: number } };
  const print = (level: string) => (o: object, m?: string) => console.log(level, m, JSON.stringify(o));
  const logger = {
    info: (o: Fields, m?: string) => {
      if (m === "CPU calibrated") startIndex = o.benchmark_index ?? 0;
      if (m === "tag scanned") last = o.cpu_index;
    },
    warn: print("WARN"), error: print("ERROR"), debug: () => {},
    child: () => logger,
  };
  const pool = createBrowserPool({ browsers: 1, slots: 2 });
  const scanner = createTagScanner({ pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy(["127.0.0.0/8"]), timeouts: { renderMs, stepMs: 4_000, landingMs: 6_000 }, logger });
  await scanner.warmUp();
  for (let k = 0; k < per; k++) {
    const r = await scanner.scan(tagJob(benchmarkMix(1_000)));
    if (!r.cpu) { console.log("NO CPU", last, JSON.stringify(r.measurement)); continue; }
    const a = r.cpu!.averagePercent;
    const fromStart = Math.round((a * startIndex / last!.index) * 10) / 10;
    rows.push(`start ${i + 1} scan ${k + 1}: start index ${startIndex} → ${fromStart} %; speedometer ${last!.index} (${last!.samples} samples) → ${a} %`);
    console.log(rows[rows.length - 1]);
  }
  await pool.close();
}
