// When a scan runs the creative a second time under Chrome's Heavy Ad Intervention (issue 21 §4).
//
// Chrome unloads an ad frame that uses more than 4 MB of network, more than 15 s of main-thread CPU in any 30 s, or
// more than 60 s of CPU in all (Chromium's heavy_ad_thresholds: kMaxNetworkBytesForHeavyAd 4 MiB,
// kMaxPeakWindowedPercent 50 % of a 30 s window, kMaxCpuTime 60 s), measured on the machine it runs on. The first run
// measured the same creative on this host: one that stayed below half of every limit cannot reach a limit in the
// scan's time, so the second run — up to 30 s of a renderer — is made only for a creative that came within half of
// one. Half, not the limit itself, because the ad frame's figures differ from the inline run's (a frame's own
// document, Chrome's accounting of cached and intercepted bytes) and Chrome's CPU window is longer than our render.
//
// Chrome's "CPU" is task wall time: the renderer adds each finished task's wall_duration to its frame's total
// (Blink's MainThreadSchedulerImpl::OnTaskCompleted → FrameSchedulerImpl::AddTaskTime → the page-load-metrics
// sender), and the browser checks it against the limits per update (PeakCpuAggregator: the updates of the last 30 s).
// So one 16 s task is reported once, when it ends, as 16 s — 53 % of a 30 s window, over the 50 % peak limit — and the
// first run's comparable figure is TaskDuration (task wall time), not the CPU clock.

import type { CpuSample } from "../gatherers/performance.ts";

export const CHROME_HEAVY_AD_LIMITS = {
  networkBytes: 4 * 1024 * 1024,
  cpuPeakMs: 15_000,
  cpuPeakWindowMs: 30_000,
  cpuTotalMs: 60_000,
} as const;

/**
 * A script the scan had to terminate after holding the main thread this long (task time) is a long task worth the
 * second run: the render watch's probes and the measure phase's 2 s liveness probe went unanswered behind it.
 */
const HELD_MIN_MS = 1_000;

export interface FirstRun {
  /** Bytes the creative loaded (every request's encoded bytes). */
  bytes: number;
  /** The renderer main thread's CPU during the render, ms on this host (ThreadTime: cpu_usage). */
  cpuMs: number;
  /**
   * The renderer main thread's task time since the render began, ms (TaskDuration): the wall time of its tasks, which
   * is what Chrome counts as an ad frame's "CPU" (each task's wall duration, added when the task ends). Above cpuMs
   * on a host short of CPU, where a preempted task's wall time runs on.
   */
  taskMs: number;
  /** How long taskMs and cpuMs were measured over, ms (the render's start to the last sample; ≥ the render when the last sample came after it). */
  spanMs: number;
  /** How long the render watched, ms. */
  renderMs: number;
  /**
   * Task time of the stretch the creative's script held the main thread until the scan terminated it, ms (0 when not
   * terminated): one task still running when cut, of unknown length.
   */
  heldMs: number;
  /**
   * The main thread answered nothing after the render, not even once the scan terminated the creative's script (the
   * page did not crash): a task held it still, for as long as the render and the measure phase's probes (≥ 4 s).
   */
  unanswered: boolean;
  /**
   * The render ended on a proof of calm (render-watch.ts calmProof): no timer, animation frame, animation, media or
   * request left in any frame, so nothing of the creative can run again without an input and its totals are final.
   */
  calmProven: boolean;
}

/** A stretch in which the main thread's tasks filled at least this share of the wall time was held, not idle. */
const HELD_SHARE = 0.5;

/**
 * The first run's task figures from the render's (time, CPU, task time) series (gatherers/performance.ts), and — when
 * the measure phase had to terminate the creative's script (its liveness probe, a script evaluation, could not run
 * beside it) — the task time of the last stretch before the cut in which tasks filled at least half of the wall time.
 * Performance.getMetrics answers during a running script (at V8 interrupts) and its TaskDuration counts the running
 * task so far; the sample after the termination holds the task up to the cut.
 */
export function firstRunTasks(series: readonly CpuSample[], terminated: boolean): Pick<FirstRun, "taskMs" | "spanMs" | "heldMs"> {
  const s = [...series].sort((a, b) => a.t - b.t);
  if (s.length === 0) return { taskMs: 0, spanMs: 0, heldMs: 0 };
  const taskMs = Math.max(0, ...s.map((x) => x.busy));
  const spanMs = s[s.length - 1]!.t - s[0]!.t;
  let heldMs = 0;
  for (let i = s.length - 1; terminated && i > 0; i--) {
    const dt = s[i]!.t - s[i - 1]!.t, busy = s[i]!.busy - s[i - 1]!.busy;
    if (!(dt > 0) || busy < HELD_SHARE * dt) break;
    heldMs += busy;
  }
  return { taskMs: Math.round(taskMs), spanMs: Math.round(spanMs), heldMs: Math.round(heldMs) };
}

const mb = (b: number) => `${(b / (1024 * 1024)).toFixed(1)} MB`;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Why the second run is worth making, or undefined with `detail` saying why not. */
export function heavyAdCheck(first: FirstRun): { run: boolean; detail: string } {
  const L = CHROME_HEAVY_AD_LIMITS;
  if (first.bytes >= L.networkBytes / 2) return { run: true, detail: `the first run loaded ${mb(first.bytes)} (Chrome's limit: 4 MB)` };
  // A task still running when the scan cut it can be of any length, and Chrome adds a task's whole wall time when it
  // ends: one of 15 s is over the 15 s-in-30 s limit by itself. Only the ad-frame run can tell how long it would run.
  if (first.unanswered) {
    return { run: true, detail: `the renderer's main thread answered nothing after the first run's render, not even once its script was terminated (one task held it; Chrome counts a task's whole length when it ends; limit: 15 s in 30 s)` };
  }
  if (first.heldMs >= HELD_MIN_MS) {
    return { run: true, detail: `the creative's script kept the renderer's main thread busy (${s(first.heldMs)} of task time without a break) until the first run terminated it (Chrome counts a task's whole length when it ends; limit: 15 s in 30 s)` };
  }
  // Chrome's count (task wall time) or the CPU time, whichever is larger: they part on a host short of CPU.
  const used = Math.max(first.cpuMs, first.taskMs);
  const what = first.taskMs > first.cpuMs ? `${s(first.taskMs)} of main-thread task time (${s(first.cpuMs)} of CPU)` : `${s(first.cpuMs)} of CPU`;
  if (used >= L.cpuPeakMs / 2) return { run: true, detail: `the first run used ${what} (Chrome's limit: 15 s in 30 s)` };
  // At the first run's rate, a 30 s window would hold half of the peak limit or more — unless the render proved that
  // nothing is left to run: then the figures are all the creative will use, not a rate. (On a starved host a static
  // banner's page load alone read 0.4 s of task time, for 0.0 s of CPU, in a 1.2 s render: "31 % of a core".)
  const over = Math.max(first.renderMs, first.spanMs);
  const rate = over > 0 && !first.calmProven ? used / over : 0;
  if (rate * L.cpuPeakWindowMs >= L.cpuPeakMs / 2) {
    return { run: true, detail: `the first run used ${what} in ${s(over)} (${Math.round(rate * 100)} % of a core; Chrome's limit: 50 % over 30 s)` };
  }
  return {
    run: false,
    detail: `not run in an ad frame: the first run stayed below half of every limit of Chrome's (${mb(first.bytes)} of 4 MB, ${what} in ${s(over)}${first.calmProven ? ", then nothing left to run" : ""})`,
  };
}
