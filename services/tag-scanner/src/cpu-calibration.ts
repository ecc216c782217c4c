import type { Browser, CDPSession } from "puppeteer-core";
import { bounded } from "./util.ts";

/**
 * The device `cpu.average_percent` / `cpu.peak_percent` are expressed on: a mid-tier phone, Lighthouse
 * BenchmarkIndex 1000. Chrome DevTools' CPU calibration names that score its mid-tier device ("like a Pixel 5",
 * front_end/panels/mobile_throttling/CalibrationController.ts: midScore = 1000; its low tier, a Moto G4 Power 2022,
 * is 264), and Lighthouse warns below 1000 that the host is slower than the device it targets
 * (core/gather/driver/environment.js, SLOW_CPU_BENCHMARK_INDEX_THRESHOLD). Chosen because most display impressions
 * are served on phones and the IAB's "≤ 30 % CPU per active ad" names no device: a creative is judged on the phone a
 * typical reader holds, not on our server.
 */
export const REFERENCE_DEVICE = { name: "mid-tier phone (Pixel 5 class)", benchmarkIndex: 1000 } as const;

/** What the calibration found: this host's BenchmarkIndex and the factor from its CPU percent to the reference's. */
export interface CpuCalibration {
  /** Lighthouse BenchmarkIndex of this host's Chromium, counted on CPU time (median of the runs). */
  benchmarkIndex: number;
  /** benchmarkIndex / REFERENCE_DEVICE.benchmarkIndex: a percent measured here × scale = the reference's percent. */
  scale: number;
  /** Every run's index, for the log. */
  runs: number[];
}

// Lighthouse's two workloads (core/lib/page-functions.js computeBenchmarkIndex), with a fixed number of iterations
// instead of "as many as fit in 500 ms of Date.now()": the work is fixed and its cost is read from the renderer's
// CPU clock (ThreadTime), so a worker that starts beside busy neighbours — whose wall clock runs on while the renderer
// waits for a core — finds the same index as a quiet one. Units are Lighthouse's: iterations / 10 / second.
const GC_ITERATIONS = 1_500;
const NO_GC_ITERATIONS = 1_500;
const GC_WORK = `(() => {
  for (let i = 0; i < ${GC_ITERATIONS}; i++) {
    let s = '';
    for (let j = 0; j < 10000; j++) s += 'a';
    if (s.length === 1) throw new Error('never');
  }
})()`;
const NO_GC_WORK = `(() => {
  const a = [], b = [];
  for (let i = 0; i < 100000; i++) a[i] = b[i] = i;
  for (let n = 0; n < ${NO_GC_ITERATIONS}; n++) {
    const src = n % 2 === 0 ? a : b, tgt = n % 2 === 0 ? b : a;
    for (let j = 0; j < src.length; j++) tgt[j] = src[j];
  }
})()`;

async function threadTime(client: CDPSession): Promise<number> {
  const m = await client.send("Performance.getMetrics");
  const t = m.metrics.find((x) => x.name === "ThreadTime")?.value;
  if (t === undefined) throw new Error("Performance.getMetrics has no ThreadTime");
  return t;
}

/** One workload's index: iterations / 10 / CPU seconds of the renderer's main thread. */
async function indexOf(client: CDPSession, work: string, iterations: number): Promise<number> {
  const before = await threadTime(client);
  const r = await client.send("Runtime.evaluate", { expression: work, awaitPromise: false, returnByValue: true });
  if (r.exceptionDetails) throw new Error(`calibration workload failed: ${r.exceptionDetails.text}`);
  const cpuS = (await threadTime(client)) - before;
  if (!(cpuS > 0)) throw new Error("calibration workload used no measurable CPU time");
  return iterations / 10 / cpuS;
}

/** The median of `runs` (runs are few and one may be disturbed: a GC, a migration to another core). */
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Runs Lighthouse's BenchmarkIndex workloads in a blank page of `browser` (an incognito context of its own, closed
 * after) and returns this host's index and scale. One warm-up run for V8's tiers, then `runs` measured ones; the
 * median is kept. About 0.2 s of CPU per run on this 2-core machine (index ~1 600), 0.8 s in all.
 */
export async function calibrateCpu(browser: Browser, runs = 3): Promise<CpuCalibration> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    const client = await page.createCDPSession();
    await client.send("Performance.enable");
    const indexes: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const gc = await indexOf(client, GC_WORK, GC_ITERATIONS);
      const noGc = await indexOf(client, NO_GC_WORK, NO_GC_ITERATIONS);
      if (i > 0) indexes.push(Math.round((gc + noGc) / 2));
    }
    const benchmarkIndex = median(indexes);
    return { benchmarkIndex, scale: benchmarkIndex / REFERENCE_DEVICE.benchmarkIndex, runs: indexes };
  } finally {
    await bounded(context.close(), 10_000, undefined);
  }
}
