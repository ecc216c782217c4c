// Where a static 300x250 tag scan's time goes, scanner level (no NATS, no edge): the bench's creative scanned N times
// on one browser, the scan log's phase_ms and the render watch's own figures (how it ended, its probes, the last
// pixel change and the first paint, ms after render start) as medians. Find the cost before removing it (issue 22).
// Usage: npx tsx services/tag-scanner/scripts/measure-tag.ts [rounds] [zip]
import { create } from "@bufbuild/protobuf";
import { ScanJobSchema, ScanKind } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { loadavg } from "node:os";
import { createBrowserPool, createTagScanner } from "../src/index.ts";

const rounds = Number(process.argv[2] ?? 10);
const AD = `<div style="width:300px;height:250px;background:linear-gradient(#06c,#0a4);color:#fff;font:24px sans-serif">Bench ad</div>`;
const job = () => create(ScanJobSchema, {
  jobId: `m-${Math.random().toString(36).slice(2)}`, kind: ScanKind.TAG, apiVersion: "v3",
  input: { case: "tag", value: { creative: { case: "html", value: AD } } },
});
const logs: Array<Record<string, unknown> & { msg?: string }> = [];
const logger = {
  info: (o: object, msg?: string) => { logs.push({ ...o, msg }); },
  warn: (o: object, msg?: string) => { logs.push({ ...o, msg }); },
  error: (o: object, msg?: string) => { logs.push({ ...o, msg }); },
};
const pool = createBrowserPool({ browsers: 1, slots: 4 });
const scanner = createTagScanner({ pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy([]), logger });
const med = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : NaN);
const loads: number[] = [];
const ends = new Map<string, number>();
try {
  await scanner.scan(job());
  await scanner.scan(job());
  const from = logs.length;
  const total: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await scanner.scan(job());
    total.push(performance.now() - t);
    loads.push(loadavg()[0]!);
  }
  const scanned = logs.slice(from).filter((l) => l.msg === "tag scanned");
  const watched = logs.slice(from).filter((l) => l.msg === "render watch");
  for (const w of watched) ends.set(String(w.render_end), (ends.get(String(w.render_end)) ?? 0) + 1);
  const phase = (k: string) => Math.round(med(scanned.map((s) => (s.phase_ms as Record<string, number>)[k]!)));
  console.log(`static 300x250 tag, ${rounds} scans, 1-min load median ${med(loads).toFixed(1)}`);
  console.log(`  scan() p50 ${Math.round(med(total))} ms; scan log ms p50 ${Math.round(med(scanned.map((s) => s.ms as number)))}`);
  console.log(`  phase_ms p50: setup ${phase("setup")} / render ${phase("render")} / measure ${phase("measure")} / accessibility ${phase("accessibility")} / landing ${phase("landing")}`);
  console.log(`  render watch p50: first paint ${med(watched.map((w) => (w.paints_ms as number[])[0] ?? -1))} ms, last change ${med(watched.map((w) => w.last_change_ms as number))} ms, probes ${med(watched.map((w) => w.probes as number))}; ended ${JSON.stringify(Object.fromEntries(ends))}`);
  if (process.env.MEASURE_VERBOSE) for (const w of watched) console.log(`    ${w.render_end} ${JSON.stringify(w.watch_ms)} lag ${w.capture_lag_ms} probes ${w.probes} paints ${JSON.stringify(w.paints_ms)}`);
  for (const k of Object.keys((watched[0]?.watch_ms as object) ?? {})) {
    console.log(`  watch timing p50 ${k}: ${med(watched.map((w) => (w.watch_ms as Record<string, number>)[k]!))} ms`);
  }
} finally {
  await pool.close();
}
