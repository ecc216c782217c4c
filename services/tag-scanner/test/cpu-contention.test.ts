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

// Nine pairs, not five: one contended scan reads 11–16 where the scan alone reads 12.2–13.8 (2026-11-27: 12.4/15/11/16/15
// and 11.3/16.1/12.1/14.1/12.6 in two runs of five, the first 18 % off by its median of five, a refused CI's worth).
// The median of nine holds that spread inside the bound; the spread itself is the speedometer's (a 13 ms sample every
// few hundred ms beside a busy loop that may share the renderer's physical core), noted in the tag-scanner README.
const PAIRS = 9;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function startHogs(): void {
  // 2x contention: one more runnable thread per core, each spinning for the whole scan.
  for (let i = 0; i < availableParallelism(); i++) hogs.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
}
function stopHogs(): void {
  while (hogs.length > 0) hogs.pop()!.kill("SIGKILL");
}

/** One scan's cpu.average_percent, and whether it was marked a lower bound (pinned). */
async function scanOnce(html: string): Promise<{ avg: number; pinned: boolean }> {
  const r: TagReport = await scanner.scan(tagJob(html));
  // A report without cpu (seen twice at load ~50, cause not found: not reproduced with this print) says what it had.
  if (!r.cpu) console.log(`no cpu: cpu_usage ${r.cpuUsageMs} timed_out ${r.timedOut} measurement ${JSON.stringify(r.measurement)} anim ${r.animationDurationMs}`);
  return { avg: r.cpu!.averagePercent, pinned: r.measurement?.lowConfidenceFields.includes("cpu") ?? false };
}

describe("cpu under contention", () => {
  it("1 000 benchmark iterations a second read the same on the reference device with a busy loop beside every core", async () => {
    const html = benchmarkMix(1_000);
    // Scans alone and contended take turns. The host's own speed moves in regimes of seconds to minutes (its other
    // tenants: cpu-calibration.ts); five alone then five contended compared two regimes as often as two conditions
    // (CI 2026-11-27: alone 12.1–12.4, then contended 11.5/17.9/20.8/12.2/15.3, 25 % apart). Taking turns puts both
    // sides in the same regimes, so what differs between them is the contention.
    const alone: number[] = [], contended: number[] = [];
    let pinned = false;
    for (let i = 0; i < PAIRS; i++) {
      const a = await scanOnce(html);
      startHogs();
      try {
        const c = await scanOnce(html);
        contended.push(c.avg);
        pinned ||= c.pinned;
      } finally {
        stopHogs();
      }
      alone.push(a.avg);
      pinned ||= a.pinned;
    }
    const a = median(alone), c = median(contended);
    console.log(`cpu.average_percent alone ${alone.join("/")} (median ${a}), 2x contention ${contended.join("/")} (median ${c})`);
    // Asserted even when a scan was marked pinned (cpu a lower bound). Taking turns, measured 2026-11-27 on the 2-core
    // host (index 1 600–2 800 over the run): medians 13.5 alone / 14.2 contended over nine pairs (5 % apart); five
    // pairs 14.3 / 15.6 (9 %).
    if (pinned) console.log("cpu was marked low-confidence (pinned) in at least one scan");
    expect(Math.abs(c - a) / a).toBeLessThanOrEqual(0.15);
  }, 480_000);
});
