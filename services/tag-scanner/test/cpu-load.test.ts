import { describe, expect, it } from "vitest";
import { cpuLoad, cpuPinned } from "../src/fields/cpu-load.ts";
import type { CpuSample } from "../src/gatherers/performance.ts";

/** Samples every `step` ms with `cpuPerStep(i)` ms of CPU and `starvedPerStep(i)` ms of wait between sample i-1 and i. */
function series(n: number, step: number, cpuPerStep: (i: number) => number, starvedPerStep: (i: number) => number = () => 0): CpuSample[] {
  const out: CpuSample[] = [{ t: 5_000, cpu: 0, busy: 0 }];
  for (let i = 1; i < n; i++) {
    const p = out[i - 1]!;
    const c = cpuPerStep(i);
    out.push({ t: p.t + step, cpu: p.cpu + c, busy: p.busy + c + starvedPerStep(i) });
  }
  return out;
}

describe("cpu (fields/cpu-load.ts)", () => {
  it("a steady 20% of this host is 20% × scale on the reference device, average and peak", () => {
    expect(cpuLoad(series(11, 500, () => 100), 1)).toEqual({ averagePercent: 20, peakPercent: 20 });
    // This host twice the reference's speed: the same work takes twice the share of a reference core.
    expect(cpuLoad(series(11, 500, () => 100), 2)).toEqual({ averagePercent: 40, peakPercent: 40 });
  });

  it("the peak is the busiest window of at least 1 s, the average the whole render", () => {
    // 5 s at 10%, then one second at 90%.
    const s = series(13, 500, (i) => (i === 11 || i === 12 ? 450 : 50));
    const load = cpuLoad(s, 1)!;
    expect(load.peakPercent).toBeCloseTo(90, 5);
    expect(load.averagePercent).toBeCloseTo((10 * 50 + 2 * 450) / 6000 * 100, 1);
  });

  it("a burst in the render's last second is in a window: the one of at least 1 s that ends with the render", () => {
    // Idle samples every 500 ms; a 400 ms task starting at 1 550 holds the sampler off until it ends (1 950); the render
    // is proven still and ends at 1 990, less than 1 s after the last sample before the task.
    const t = [0, 500, 1_000, 1_500, 1_960, 1_990];
    const cpu = [0, 5, 10, 15, 415, 420];
    const s: CpuSample[] = t.map((x, k) => ({ t: 5_000 + x, cpu: cpu[k]!, busy: cpu[k]! }));
    const load = cpuLoad(s, 1)!;
    expect(load.averagePercent).toBeCloseTo(420 / 1990 * 100, 0);
    // Forward from 1 000 no sample lies 1 s ahead; back from the sample after the task, 500 → 1 960 holds all of it.
    expect(load.peakPercent).toBeCloseTo(410 / 1460 * 100, 0);
  });

  it("contention: a timer-driven load keeps its figure; a thread pinned by it is told apart (cpu is then a lower bound)", () => {
    // A timer-driven 20% whose bursts waited for a core (each burst's wall time doubled): still 20%, not pinned.
    const waited = series(9, 500, () => 100, () => 100);
    expect(cpuLoad(waited, 1)).toEqual({ averagePercent: 20, peakPercent: 20 });
    expect(cpuPinned(waited).ms).toBe(0);
    // A busy loop on a host with two runnable threads per core: 50% is what it got, and 4 s of it were pinned.
    const loop = series(9, 500, () => 250, () => 250);
    expect(cpuLoad(loop, 1)).toEqual({ averagePercent: 50, peakPercent: 50 });
    expect(cpuPinned(loop)).toEqual({ ms: 4000, starvedMs: 2000 });
    // A busy loop alone on its core: never idle but never kept waiting, so not pinned.
    expect(cpuPinned(series(9, 500, () => 500)).ms).toBe(0);
  });

  it("capped at one reference core; out-of-order samples are ordered by the renderer's clock", () => {
    const s = series(5, 500, () => 400);
    expect(cpuLoad(s, 3)).toEqual({ averagePercent: 100, peakPercent: 100 });
    expect(cpuLoad([s[3]!, s[0]!, s[4]!, s[1]!, s[2]!], 1)).toEqual({ averagePercent: 80, peakPercent: 80 });
  });

  it("a render shorter than a window is one window; no span, no figure", () => {
    expect(cpuLoad(series(3, 250, () => 50), 1)).toEqual({ averagePercent: 20, peakPercent: 20 });
    expect(cpuLoad(series(1, 500, () => 0), 1)).toBeUndefined();
    expect(cpuLoad([], 1)).toBeUndefined();
  });

  it("a render proven still before a window ends is counted over the whole window: the thread idles after it", () => {
    // A static banner: 60 ms of parse and first paint, proven still 200 ms later — 6 % of a second, not 30 %.
    const still = series(3, 100, () => 30);
    expect(cpuLoad(still, 1, true)).toEqual({ averagePercent: 6, peakPercent: 6 });
    expect(cpuLoad(still, 1, false)).toEqual({ averagePercent: 30, peakPercent: 30 });
    // A render of a window or more is its own span either way.
    expect(cpuLoad(series(11, 500, () => 100), 1, true)).toEqual({ averagePercent: 20, peakPercent: 20 });
  });
});
