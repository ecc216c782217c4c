import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import type { TagReport } from "@cva/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserPool, TagScanner } from "../src/index.ts";
import { benchmarkMix } from "./cpu-workload.ts";
import { createTestScanner, tagJob } from "./helpers.ts";

// Issue 21 §3: a fixed workload gives the same normalised figure under 2x CPU contention (within 15 %). Heavy on
// purpose (a busy loop on every core), so it runs in the `load` project, alone.
let pool: BrowserPool;
let scanner: TagScanner;
const hogs: ChildProcess[] = [];

beforeAll(async () => {
  // The workload never stops, so every scan lasts its render time-out (12 s). A 6 s render was tried to save a minute:
  // its medians came 15.1 % apart in CI (alone 14.6, contended 12.4), past the bound, so the longer average stays.
  ({ pool, scanner } = createTestScanner());
  // As a running worker: the service calibrates its CPU when it starts (warmUp).
  await scanner.warmUp();
}, 120_000);
afterAll(async () => {
  for (const h of hogs) h.kill("SIGKILL");
  await pool.close();
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Five scans one after the other (single scans spread ±15 % on a host at load ~25); the median, and whether any was marked a lower bound. */
async function measure(html: string): Promise<{ avg: number; all: number[]; pinned: boolean }> {
  const reports: TagReport[] = [];
  for (let i = 0; i < 5; i++) reports.push(await scanner.scan(tagJob(html)));
  // A report without cpu (seen twice at load ~50, cause not found: not reproduced with this print) says what it had.
  for (const r of reports) if (!r.cpu) console.log(`no cpu: cpu_usage ${r.cpuUsageMs} timed_out ${r.timedOut} measurement ${JSON.stringify(r.measurement)} anim ${r.animationDurationMs}`);
  const all = reports.map((r) => r.cpu!.averagePercent);
  return { avg: median(all), all, pinned: reports.some((r) => r.measurement?.lowConfidenceFields.includes("cpu")) };
}

describe("cpu under contention", () => {
  it("1 000 benchmark iterations a second read the same on the reference device with a busy loop beside every core", async () => {
    const html = benchmarkMix(1_000);
    const alone = await measure(html);
    // 2x contention: one more runnable thread per core, each spinning for the whole measurement.
    for (let i = 0; i < availableParallelism(); i++) hogs.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
    const contended = await measure(html);
    console.log(`cpu.average_percent alone ${alone.all.join("/")} (median ${alone.avg}), 2x contention ${contended.all.join("/")} (median ${contended.avg})`);
    // Asserted even when a scan was marked pinned (cpu a lower bound): measured here at load ~25 on 2 cores, both
    // sides pinned, medians of 3: alone 12.7 / contended 14.1 (11 % apart), then 17.8 / 15.3 (14 %); medians of 5:
    // 12.8 / 11.4 (11 %), 16.2 / 15.3 (6 %).
    if (alone.pinned || contended.pinned) console.log("cpu was marked low-confidence (pinned) in at least one scan");
    expect(Math.abs(contended.avg - alone.avg) / alone.avg).toBeLessThanOrEqual(0.15);
  }, 480_000);
});
