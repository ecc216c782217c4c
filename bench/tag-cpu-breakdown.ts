// Where a static scan's CPU goes at 4 concurrent scans (issue 22 §2): the scanner with its start (warmUp: warm pages,
// the CPU speedometer) as the service runs it, one browser x 4 slots, the bench's static 300x250 v3 tag, 4 closed-loop
// clients. CPU is user + sys per process kind (cpu.ts: this node process with its threads, Chromium browser /
// renderers / GPU / network) per scan over each block, and the targets (pages, workers) made per scan. Variants: each
// name given is set as process.env.CVA_EXP for its blocks, alternating, so that a switch read from it while measuring
// (a local experiment, never committed) runs in the same minutes as the rest.
// Usage: [JOB=landing] node --import tsx bench/tag-cpu-breakdown.ts [blocks] [scans-per-block] [variant,variant,...]
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { loadavg } from "node:os";
import { countCpu, totalCpu, type CpuByKind } from "./cpu.ts";
import * as B from "../services/tag-scanner/src/index.ts";
import { keptLog, staticAdJob, type Log, type LogLine } from "../services/tag-scanner/scripts/static-ad-kit.ts";

const blocks = Number(process.argv[2] ?? 4);
const perBlock = Number(process.argv[3] ?? 12);
const variants = (process.argv[4] ?? "base").split(",");
const logs: LogLine[] = [];
const mk = (b: object): Log => keptLog(logs, b);
// JOB=landing: the v3 tag as the edge sends it (capture_landing_page set), the path every bench scan takes.
const job = process.env.JOB === "landing" ? () => { const j = staticAdJob(); if (j.input.case === "tag") j.input.value.captureLandingPage = true; return j; } : staticAdJob;
const pool = B.createBrowserPool({ browsers: 1, slots: 4 });
const scanner = B.createTagScanner({ pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy([]), logger: mk({}), consentStates: true, heavyAd: true });
await scanner.warmUp();
const lease = await pool.acquire(); const browser = lease.browser; lease.release();
const targets: Record<string, number> = {};
browser.on("targetcreated", (t) => { targets[t.type()] = (targets[t.type()] ?? 0) + 1; });
async function block(n: number) {
  let left = n; const walls: number[] = [];
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (left-- > 0) { const t = performance.now(); await scanner.scan(job()); walls.push(performance.now() - t); }
  }));
  return walls;
}
await block(8);
const cpu: Record<string, CpuByKind[]> = {}; const rate: Record<string, number[]> = {}; const tg: Record<string, Record<string, number>[]> = {};
const loads: number[] = [];
for (let b = 0; b < blocks; b++) {
  for (const v of b % 2 ? [...variants].reverse() : variants) {
    process.env.CVA_EXP = v;
    await block(4); // the pages prepared ahead under this variant
    for (const k of Object.keys(targets)) delete targets[k];
    const c = countCpu(new Map([["tag-scanner", process.pid]]));
    const t0 = performance.now();
    const walls = await block(perBlock);
    const used = c.stop();
    (rate[v] ??= []).push(perBlock / ((performance.now() - t0) / 60_000));
    (cpu[v] ??= []).push(Object.fromEntries(Object.entries(used).map(([k, x]) => [k, x / perBlock])));
    (tg[v] ??= []).push(Object.fromEntries(Object.entries(targets).map(([k, x]) => [k, x / perBlock])));
    loads.push(loadavg()[0]!);
    console.log(`block ${b} ${v}: ${(totalCpu(used) / perBlock).toFixed(3)} CPU-s/scan, ${rate[v]!.at(-1)!.toFixed(1)}/min, wall p50 ${Math.round(walls.sort((a, z) => a - z)[walls.length >> 1]!)} ms, load ${loadavg()[0]!.toFixed(1)}`);
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const v of variants) {
  const kinds = [...new Set(cpu[v]!.flatMap(Object.keys))];
  const per = Object.fromEntries(kinds.map((k) => [k, mean(cpu[v]!.map((c) => c[k] ?? 0))]).filter(([, x]) => (x as number) >= 0.005).sort((a, b) => (b[1] as number) - (a[1] as number)));
  console.log(`${v}: CPU ${mean(cpu[v]!.map(totalCpu)).toFixed(3)} s/scan [${cpu[v]!.map((c) => totalCpu(c).toFixed(2)).join(" ")}], ${mean(rate[v]!).toFixed(1)}/min; ` +
    Object.entries(per).map(([k, x]) => `${k.replace("chromium ", "")} ${(x as number).toFixed(3)}`).join(", "));
  const tk = [...new Set(tg[v]!.flatMap(Object.keys))];
  console.log(`   targets/scan: ${tk.map((k) => `${k} ${mean(tg[v]!.map((t) => t[k] ?? 0)).toFixed(2)}`).join(", ")}`);
}
const steps = logs.filter((l) => l.msg === "tag scanned").slice(-40);
console.log("last scans' phase_ms p50:", JSON.stringify(Object.fromEntries(Object.keys(steps[0]?.phase_ms as object ?? {}).map((k) => [k, steps.map((s) => (s.phase_ms as Record<string, number>)[k]!).sort((a, b) => a - b)[steps.length >> 1]]))));
console.log("consent plans:", JSON.stringify(logs.filter((l) => l.msg === "consent plan").slice(-1)));
console.log(`load median ${loads.sort((a, b) => a - b)[loads.length >> 1]!.toFixed(1)}`);
await pool.close();
process.exit(0);
