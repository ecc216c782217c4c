// One capacity point for an A/B: the tag path (auth, report store, tag scanner, edge; built bundles) at CLIENTS
// closed-loop clients, SCANS static tag scans a round, ROUNDS rounds, each beside the floor (contexts at the same
// concurrency) and with CPU seconds per scan per process kind (bench/cpu.ts). Prints one JSON line per round.
// Run it from each checkout in turn (`npm run build` first), alternating, on the same machine:
//   node --import tsx bench/capacity-ab.ts
// CVA_CPU_PROF=<preload>:<dir> (preload: the absolute path of bench/cpu-profile-preload.cjs): every node process
// preloads it (NODE_OPTIONS forbids --cpu-prof), and the tag scanner gets SIGUSR2 around the measured scans of round
// 0: the preload profiles between the two signals and writes <dir>/<pid>.cpuprofile.
import { startStack } from "../test/harness/stack.ts";
import { launchFloorBrowser, floorScan } from "./browser-floor.ts";
import { AD_BOX, AD_PAGE, TAG_BODY } from "./creatives.ts";
import { countCpu, totalCpu } from "./cpu.ts";
import { runClients, scanAttempt } from "./load.ts";
import { records, TAG_SCANNED, phaseMedians } from "./logs.ts";
import { sampleTree } from "./memory.ts";

const CLIENTS = Number(process.env.CLIENTS ?? 4);
const SCANS = Number(process.env.SCANS ?? 16);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const prof = process.env.CVA_CPU_PROF;

const stack = await startStack({
  only: ["auth", "report-store", "tag-scanner", "edge"],
  waitForWorkers: ["tag"],
  built: true,
  env: { CUSTOMER_MAX_IN_FLIGHT: "1000", ...(prof ? { NODE_OPTIONS: `--require ${prof.split(":")[0]}`, CVA_CPU_PROF_DIR: prof.split(":")[1]! } : {}) },
});
const floor = await launchFloorBrowser();
try {
  const key = await stack.createKey("bench", 1_000_000);
  const once = scanAttempt(stack.baseUrl, "/v3/scanTag", TAG_BODY, key);
  for (let i = 0; i < 4; i++) await once();
  const r4 = (n: number) => Math.round(n * 100) / 100;
  for (let round = 0; round < ROUNDS; round++) {
    const fpid = floor.browser.process()?.pid;
    const fc = countCpu(new Map([["floor", fpid!]]), "floor");
    const f = await runClients(CLIENTS, SCANS, async () => ({ ok: true as const, value: await floorScan(floor.browser, AD_PAGE, AD_BOX) }));
    const fcpu = fc.stop();
    const from = stack.logs.length;
    const mem = sampleTree(stack.pids().get("tag-scanner"));
    const c = countCpu(stack.pids());
    const scanner = stack.pids().get("tag-scanner")!;
    if (prof && round === 0) process.kill(scanner, "SIGUSR2");
    const r = await runClients(CLIENTS, SCANS, once);
    const cpu = c.stop();
    if (prof && round === 0) process.kill(scanner, "SIGUSR2");
    const m = mem.stop();
    const n = r.times.length;
    console.log(JSON.stringify({
      round, clients: CLIENTS, scansPerMin: r4(r.perMinute), floorPerMin: r4(f.perMinute), vsFloor: r4(r.perMinute / f.perMinute),
      failed: r.failures.length, refused: r.refused, failures: r.failures.slice(0, 2),
      cpuSPerScan: r4(totalCpu(cpu) / n), floorCpuSPerContext: r4(totalCpu(fcpu) / f.times.length),
      cpuPerScan: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, r4(v / n)]).sort((a, b) => (b[1] as number) - (a[1] as number))),
      mbPerSlot: m ? Math.round(m.pssMb / Number(process.env.TAG_SCANNER_SLOTS ?? 4)) : undefined, slots: Number(process.env.TAG_SCANNER_SLOTS ?? 4), processes: m?.processes,
      phases: phaseMedians(records(stack.logs, from, ...TAG_SCANNED)),
    }));
  }
} finally {
  await floor.close();
  await stack.stop();
}
