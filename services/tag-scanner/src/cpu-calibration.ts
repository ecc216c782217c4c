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
// waits for a core — finds the same index. Units are Lighthouse's: iterations / 10 / second.
//
// Why one figure at start was not enough (measured 2026-11-27 on this 2-core KVM host, load 13–20): the index of ten
// service starts spread 1 210–2 009, each start's three runs close together (1 262/1 239/1 297, then 1 917/1 891/
// 1 909), and every `cpu` figure scaled with it. Neither the clock nor JIT tiering did it: in one page, with the
// workloads compiled once and warmed, a register-only loop read 143–153 (±3 %) sample after sample while Lighthouse's
// string building read 730–1 729 and its array copies 1 214–2 202, in regimes lasting seconds to tens of seconds —
// the two workloads are memory-bound (a 10 000-character string per iteration, two 800 KB arrays), and their speed
// per CPU second is the shared caches' and memory's, which the host's other tenants take and give back. A creative's
// JavaScript is as memory-bound, so its CPU time moves with the same regimes: a fixed workload scanned in a slow
// regime with a scale found in a fast one read 1.6× its figure (CI: 1 000 iterations a second, 10 % by definition,
// read over 16 %). So the index is measured where the creative's CPU is: a speedometer page samples it while scans
// render (createCpuSpeedometer), and a scan is scaled by the index of its own render's time.
//
// The workloads are defined once in the page and warmed before any sample counts (an expression evaluated anew is a
// new closure: each run went through V8's tiers again, on a background compiler the host may delay).
const WORKLOADS = `globalThis.__cvaBench = {
  a: [], b: [],
  gc(n) {
    for (let i = 0; i < n; i++) {
      let s = '';
      for (let j = 0; j < 10000; j++) s += 'a';
      if (s.length === 1) throw new Error('never');
    }
  },
  noGc(n) {
    const a = this.a, b = this.b;
    if (a.length === 0) for (let i = 0; i < 100000; i++) a[i] = b[i] = i;
    for (let k = 0; k < n; k++) {
      const src = k % 2 === 0 ? a : b, tgt = k % 2 === 0 ? b : a;
      for (let j = 0; j < src.length; j++) tgt[j] = src[j];
    }
  },
}; 0`;

async function threadTime(client: CDPSession): Promise<number> {
  const m = await client.send("Performance.getMetrics");
  const t = m.metrics.find((x) => x.name === "ThreadTime")?.value;
  if (t === undefined) throw new Error("Performance.getMetrics has no ThreadTime");
  return t;
}

/** One workload's index: iterations / 10 / CPU seconds of the renderer's main thread. */
async function indexOf(client: CDPSession, fn: "gc" | "noGc", iterations: number): Promise<number> {
  const before = await threadTime(client);
  const r = await client.send("Runtime.evaluate", { expression: `__cvaBench.${fn}(${iterations})`, returnByValue: true });
  if (r.exceptionDetails) throw new Error(`calibration workload failed: ${r.exceptionDetails.text}`);
  const cpuS = (await threadTime(client)) - before;
  if (!(cpuS > 0)) throw new Error("calibration workload used no measurable CPU time");
  return iterations / 10 / cpuS;
}

/** One sample of the index: both workloads, their indexes' mean (Lighthouse's). */
async function sample(client: CDPSession, iterations: number): Promise<number> {
  return Math.round(((await indexOf(client, "gc", iterations)) + (await indexOf(client, "noGc", iterations))) / 2);
}

/** The median (samples are many and some are disturbed: a GC, a migration, a neighbour's burst). */
export const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Iterations of each workload per start sample and per speedometer sample: ~13 ms of CPU a pair at index 1 500
 * (iterations / 10 / index seconds each). Each workload's run starts on a renderer that has just sat idle between CDP calls, and
 * on a quiet KVM guest an idle vCPU halts and comes back cold; busy neighbours keep it from halting. A short run pays
 * that start more than a creative's bursts do: at 40 iterations (~5 ms a pair) the 1 000/s workload read 10.7 / 11.1 %
 * alone and 12.2 / 12.4 % beside a busy loop a core (14 and 12 % apart, two clean-clone CIs); at 100, 12.2 / 12.5 and
 * 12.4 / 12.4 (2.5 and 0 % apart, same quiet host, 2026-11-27).
 */
const START_ITERATIONS = 100;
const SPEEDO_ITERATIONS = 100;

/** A blank page of its own in `browser` with the workloads defined and warmed. */
async function benchPage(browser: Browser) {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    const client = await page.createCDPSession();
    await client.send("Performance.enable");
    const r = await client.send("Runtime.evaluate", { expression: WORKLOADS });
    if (r.exceptionDetails) throw new Error(`calibration workloads failed: ${r.exceptionDetails.text}`);
    // Warm: enough calls for both loops to reach V8's optimising tier before a sample counts.
    for (let i = 0; i < 6; i++) await sample(client, 20);
    return { client, close: () => bounded(context.close(), 10_000, undefined) };
  } catch (err) {
    await bounded(context.close(), 10_000, undefined);
    throw err;
  }
}

/** `runs` samples of the warmed workloads; their median is the index. */
async function calibrateOn(client: CDPSession, runs: number): Promise<CpuCalibration> {
  const indexes: number[] = [];
  for (let i = 0; i < runs; i++) indexes.push(await sample(client, START_ITERATIONS));
  const benchmarkIndex = median(indexes);
  return { benchmarkIndex, scale: benchmarkIndex / REFERENCE_DEVICE.benchmarkIndex, runs: indexes };
}

/** Samples the start's calibration takes (~1 s of CPU in all at index ~1 500, the warm-up included). */
export const CALIBRATION_RUNS = 9;

/**
 * Runs Lighthouse's BenchmarkIndex workloads in a blank page of `browser` (an incognito context of its own, closed
 * after) and returns this host's index and scale: the median of `runs` samples after the warm-up. About 0.1 s of CPU
 * per sample at index ~1 500.
 */
export async function calibrateCpu(browser: Browser, runs = CALIBRATION_RUNS): Promise<CpuCalibration> {
  const bench = await benchPage(browser);
  try {
    return await calibrateOn(bench.client, runs);
  } finally {
    await bench.close();
  }
}

/** How often the speedometer samples while a scan renders, ms: ~13 ms of CPU each, ~2.5 % of a core. */
export const SPEEDO_PERIOD_MS = 500;
/** A scan whose render saw fewer samples than this is scaled by the last ones before its end as well. */
const SPEEDO_MIN_SAMPLES = 5;
/** Samples kept (at the period, 2.5 minutes of renders). */
const SPEEDO_KEEP = 300;

export interface CpuSpeedometer {
  /** The start's calibration (undefined when it failed): the scale of a scan the speedometer saw no sample for. */
  readonly calibration: Promise<CpuCalibration | undefined>;
  /** Samples while at least one render is under way; call the function returned when the render ends. */
  begin(): () => void;
  /**
   * The index over wall-clock [fromMs, toMs] (Date.now()): the median of the samples taken then, topped up with the
   * last samples before toMs to at least five; undefined when there are none.
   */
  indexOver(fromMs: number, toMs: number): { index: number; samples: number } | undefined;
  close(): Promise<void>;
}

/**
 * The host's BenchmarkIndex, calibrated at start and sampled again while scans render, in a page of `browser` kept for
 * it. The speed of memory-bound JavaScript on a shared host moves in regimes of seconds (see above); a scan scaled by
 * the index of its own render's time is scaled by the conditions its creative ran in. A failed sample makes the page
 * again; sampling ends only with the browser (`onError`), and the samples taken stay readable.
 */
export function createCpuSpeedometer(browser: Browser, onError?: (err: unknown) => void): CpuSpeedometer {
  const samples: Array<{ t: number; index: number }> = [];
  let active = 0;
  let loop: Promise<void> | undefined;
  let closed = false;
  let bench: Awaited<ReturnType<typeof benchPage>> | undefined;
  const calibration = (async () => {
    bench = await benchPage(browser);
    return calibrateOn(bench.client, CALIBRATION_RUNS);
  })();
  const ready = calibration.catch((err: unknown) => { onError?.(err); return undefined; });

  async function run(): Promise<void> {
    if (!(await ready)) return;
    try {
      while (active > 0 && !closed) {
        const t0 = Date.now();
        try {
          // A bench page lost (its renderer crashed, a CDP call failed) is made again while the browser lives.
          bench ??= await benchPage(browser);
          const index = await sample(bench.client, SPEEDO_ITERATIONS);
          samples.push({ t: Math.round((t0 + Date.now()) / 2), index });
          if (samples.length > SPEEDO_KEEP) samples.splice(0, samples.length - SPEEDO_KEEP);
        } catch (err) {
          if (!browser.connected) throw err;
          const lost = bench;
          bench = undefined;
          void lost?.close();
        }
        await new Promise((r) => setTimeout(r, Math.max(0, SPEEDO_PERIOD_MS - (Date.now() - t0))));
      }
    } catch (err) {
      if (!closed) onError?.(err);
      closed = true;
    } finally {
      loop = undefined;
    }
  }

  return {
    calibration: ready,
    begin() {
      active++;
      if (!loop && !closed) loop = run();
      let ended = false;
      return () => { if (!ended) { ended = true; active--; } };
    },
    indexOver(fromMs, toMs) {
      const upTo = samples.filter((x) => x.t <= toMs);
      const within = upTo.filter((x) => x.t >= fromMs);
      const used = within.length >= SPEEDO_MIN_SAMPLES ? within : upTo.slice(-SPEEDO_MIN_SAMPLES);
      return used.length > 0 ? { index: Math.round(median(used.map((x) => x.index))), samples: used.length } : undefined;
    },
    async close() {
      closed = true;
      await ready;
      await bench?.close();
    },
  };
}
