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
 * The share of one core the renderer main thread used between two samples, 0–1.
 *
 * CPU time over wall time, except when the thread never idled in the span: its tasks' wall time (TaskDuration) beyond
 * their CPU time is time it was runnable but kept from a core by other processes, and a thread that was either running
 * or waiting to run the whole span would have had the whole span on a core of its own — a busy loop reads 100 %, not
 * the 50 % a machine with two runnable threads per core leaves it. A creative that idles between bursts (timers, frames:
 * the usual ad) is measured by its CPU time per wall second, which contention does not change while each burst still
 * fits in its period. Limit: a creative wanting more than the share contention left it is read as saturated (100 %).
 */
function share(a: CpuSample, b: CpuSample): number | undefined {
  const dt = b.t - a.t;
  if (!(dt > 0)) return undefined;
  const cpu = Math.max(0, b.cpu - a.cpu);
  const starved = Math.max(0, b.busy - a.busy - cpu);
  const neverIdle = cpu + starved >= 0.9 * dt;
  return Math.min(1, neverIdle ? cpu / Math.max(cpu, dt - starved) : cpu / dt);
}

/**
 * `cpu` from the render's (time, CPU time) series and the host's calibration scale (its BenchmarkIndex over the
 * reference device's): a percent measured here × scale is the percent the same work takes on the reference device,
 * capped at 100 (a creative wanting more than one reference core is held to it there). Undefined when the series
 * spans no time (the page never answered Performance.getMetrics).
 */
export function cpuLoad(series: readonly CpuSample[], scale: number): CpuLoad | undefined {
  // Samples are requested concurrently and may come back out of order; the renderer's clock orders them.
  const s = [...series].sort((x, y) => x.t - y.t);
  if (s.length < 2 || !(scale > 0)) return undefined;
  const average = share(s[0]!, s[s.length - 1]!);
  if (average === undefined) return undefined;
  let peak: number | undefined;
  for (let i = 0, j = 0; i < s.length; i++) {
    j = Math.max(j, i + 1);
    while (j < s.length && s[j]!.t - s[i]!.t < CPU_WINDOW_MS) j++;
    if (j >= s.length) break;
    const w = share(s[i]!, s[j]!);
    if (w !== undefined) peak = Math.max(peak ?? 0, w);
  }
  // A render shorter than a window: its whole span is the only window there is.
  const onReference = (x: number) => Math.round(Math.min(100, x * scale * 100) * 10) / 10;
  return { averagePercent: onReference(average), peakPercent: onReference(Math.max(peak ?? average, average)) };
}
