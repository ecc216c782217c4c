// The consent states' cost on a static tag, scanner level (no NATS, no edge): one browser pool, the same static
// 300x250 tag scanned alternately with and without the consent runs, p50/p95 of each. `npm run bench` shows the same
// end to end (bench/consent.ts). Usage: npx tsx services/tag-scanner/scripts/measure-consent.ts [rounds]
import { create } from "@bufbuild/protobuf";
import { ScanJobSchema, ScanKind } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { loadavg } from "node:os";
import { createBrowserPool, createTagScanner } from "../src/index.ts";

const rounds = Number(process.argv[2] ?? 10);
const TAG = `<div style="width:300px;height:250px;background:#1e88e5;color:#fff;font:20px sans-serif">Static ad</div>`;
const job = () => create(ScanJobSchema, {
  jobId: `m-${Math.random().toString(36).slice(2)}`, kind: ScanKind.TAG, apiVersion: "v3",
  input: { case: "tag", value: { creative: { case: "html", value: TAG } } },
});
const pool = createBrowserPool({ browsers: 1, slots: 2 });
const make = (consentStates: boolean) => createTagScanner({ pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy([]), consentStates });
const on = make(true);
const off = make(false);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const times = { on: [] as number[], off: [] as number[] };
const loads: number[] = [];
try {
  await on.scan(job());
  await off.scan(job());
  for (let i = 0; i < rounds; i++) {
    for (const [k, s] of [["off", off], ["on", on]] as const) {
      const t = performance.now();
      await s.scan(job());
      times[k].push(performance.now() - t);
      loads.push(loadavg()[0]!);
    }
  }
  const f = (xs: number[]) => `p50 ${Math.round(pct(xs, 50))} ms, p95 ${Math.round(pct(xs, 95))} ms`;
  console.log(`static 300x250 tag, ${rounds} rounds each, alternating; 1-min load average median ${pct(loads, 50).toFixed(1)}`);
  console.log(`  without consent states: ${f(times.off)}`);
  console.log(`  with consent states:    ${f(times.on)}`);
  console.log(`  added p50: ${Math.round(pct(times.on, 50) - pct(times.off, 50))} ms`);
} finally {
  await pool.close();
}
