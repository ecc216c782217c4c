import type { CpuSample } from "../gatherers/performance.ts";

/** cpu.peak_percent's window: the busiest second of the render. */
export const CPU_WINDOW_MS = 1_000;

/** The report's `cpu`: the creative's main-thread CPU load as it would be on the reference device (cpu-calibration.ts). */
export interface CpuLoad {
  /** Over the whole render, percent of one reference core (0–100, one decimal). */
  averagePercent: number;
  /** The busiest window of at least 1 s, same unit. */
  peakPercent: number;
}

/**
 * The share of one core the renderer main thread used between two samples, 0–1: CPU time per wall time. A creative
 * that idles between bursts (timers, frames: the usual ad) uses the same CPU per wall second however busy the host
 * is, as long as each burst still fits in its period, so the figure does not depend on the scans beside it.
 */
function share(a: CpuSample, b: CpuSample): number | undefined {
  const dt = b.t - a.t;
  return dt > 0 ? Math.min(1, Math.max(0, b.cpu - a.cpu) / dt) : undefined;
}

/**
 * How long the thread was pinned: never idle (its tasks' wall time filled the span) and kept from a core for a
 * quarter of it or more. There the creative wanted more than the host gave it, its CPU per wall second is what it
 * got, a lower bound of what it would use alone on a core (a busy loop on a host with two runnable threads per core
 * reads 50 %), so cpu is marked low-confidence (report.ts) instead of reporting the host's contention as the
 * creative's load. ms of pinned spans and the starvation in them.
 */
export function cpuPinned(series: readonly CpuSample[]): { ms: number; starvedMs: number } {
  const s = [...series].sort((x, y) => x.t - y.t);
  let ms = 0, starvedMs = 0;
  for (let i = 1; i < s.length; i++) {
    const a = s[i - 1]!, b = s[i]!;
    const dt = b.t - a.t, busy = b.busy - a.busy, cpu = b.cpu - a.cpu;
    if (dt > 0 && busy >= 0.9 * dt && busy - cpu >= 0.25 * dt) {
      ms += dt;
      starvedMs += busy - cpu;
    }
  }
  return { ms: Math.round(ms), starvedMs: Math.round(starvedMs) };
}

/** Pinned this long (cpuPinned), cpu is a lower bound: one of its 1 s windows may be the host's, not the creative's. */
export const CPU_PINNED_MS = 1_000;

/**
 * `cpu` from the render's (time, CPU time) series and the host's calibration scale (its BenchmarkIndex over the
 * reference device's): a percent measured here × scale is the percent the same work takes on the reference device,
 * capped at 100 (a creative wanting more than one reference core is held to it there). Undefined when the series
 * spans no time (the page never answered Performance.getMetrics).
 *
 * `stillAfter`: the render ended on the watch's proof that nothing more was scheduled (not moving, not timed out),
 * so the thread stays idle after it. A render that short — a static banner proven still a few hundred ms after its
 * first paint — is then counted over one full window: its parse and first paint over the 0.2 s the watch needed
 * read 20–30 % on a fast host (CI 2026-11-27, once the scanner's browser lost a spare renderer and renders got
 * shorter), a figure of the watch's speed, not of the creative, which idles for the rest of any second it is shown.
 */
export function cpuLoad(series: readonly CpuSample[], scale: number, stillAfter = false): CpuLoad | undefined {
  // Samples are requested concurrently and may come back out of order; the renderer's clock orders them.
  const s = [...series].sort((x, y) => x.t - y.t);
  if (s.length < 2 || !(scale > 0)) return undefined;
  const first = s[0]!, last = s[s.length - 1]!;
  const span = last.t - first.t;
  const average = stillAfter && span > 0 && span < CPU_WINDOW_MS
    ? Math.min(1, Math.max(0, last.cpu - first.cpu) / CPU_WINDOW_MS)
    : share(first, last);
  if (average === undefined) return undefined;
  // The shortest windows of at least 1 s from each sample forward and from each sample back: forward alone misses the
  // render's last second, where no sample lies 1 s ahead — a burst there (a 1 s task ending a render proven still
  // right after it) was found in no window and the peak fell back to the average (CI 2026-11-27: 48.8 for 1 s of a
  // reference core, read 67–100 with a sample 1 s past it).
  let peak: number | undefined;
  const consider = (a: CpuSample, b: CpuSample) => {
    const w = share(a, b);
    if (w !== undefined) peak = Math.max(peak ?? 0, w);
  };
  for (let i = 0, j = 0; i < s.length; i++) {
    j = Math.max(j, i + 1);
    while (j < s.length && s[j]!.t - s[i]!.t < CPU_WINDOW_MS) j++;
    if (j >= s.length) break;
    consider(s[i]!, s[j]!);
  }
  for (let j = s.length - 1, i = s.length - 1; j > 0; j--) {
    i = Math.min(i, j - 1);
    while (i >= 0 && s[j]!.t - s[i]!.t < CPU_WINDOW_MS) i--;
    if (i < 0) break;
    consider(s[i]!, s[j]!);
  }
  // A render shorter than a window: its whole span is the only window there is.
  const onReference = (x: number) => Math.round(Math.min(100, x * scale * 100) * 10) / 10;
  return { averagePercent: onReference(average), peakPercent: onReference(Math.max(peak ?? average, average)) };
}
