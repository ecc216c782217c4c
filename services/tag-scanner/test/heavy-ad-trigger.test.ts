import { describe, expect, it } from "vitest";
import { firstRunTasks, heavyAdCheck, type FirstRun } from "../src/heavy-ad/trigger.ts";
import { withCpuUnanswered } from "../src/report.ts";

// When the scan makes the heavy-ad run (issue 21 §4): on the first run's bytes, its CPU, its task wall time (what
// Chrome counts) and a long task the scan had to terminate.
const quiet: FirstRun = { bytes: 100_000, cpuMs: 200, taskMs: 250, spanMs: 3_000, renderMs: 3_000, heldMs: 0, unanswered: false, calmProven: false };

describe("heavy-ad trigger", () => {
  it("a light creative is not run again; a heavy download or CPU is", () => {
    expect(heavyAdCheck(quiet).run).toBe(false);
    expect(heavyAdCheck({ ...quiet, bytes: 3 * 1024 * 1024 })).toMatchObject({ run: true, detail: expect.stringMatching(/3\.0 MB/) });
    expect(heavyAdCheck({ ...quiet, cpuMs: 8_000, taskMs: 8_100, spanMs: 9_000, renderMs: 9_000 }).run).toBe(true);
    // 30 % of a core over 6 s: 9 s in a 30 s window.
    expect(heavyAdCheck({ ...quiet, cpuMs: 1_800, taskMs: 1_900, spanMs: 6_000, renderMs: 6_000 }).run).toBe(true);
  });

  it("counts task wall time as Chrome does, not only the CPU clock (a host short of CPU)", () => {
    // A loop preempted on a loaded host: 1.9 s of CPU, 8.2 s of task time over 8.4 s.
    const r = heavyAdCheck({ ...quiet, cpuMs: 1_900, taskMs: 8_200, spanMs: 8_400, renderMs: 5_900 });
    expect(r.run).toBe(true);
    expect(r.detail).toMatch(/8\.2 s of main-thread task time \(1\.9 s of CPU\)/);
  });

  it("takes a render proven calm for final totals, not a rate (a static banner on a starved host)", () => {
    // Measured: a static 300x250 beside 4 busy loops read 0.4 s of task time with 0.0 s of CPU in a 1.2 s render.
    const starved = { ...quiet, cpuMs: 30, taskMs: 400, spanMs: 1_200, renderMs: 1_200 };
    expect(heavyAdCheck(starved).run).toBe(true);
    const r = heavyAdCheck({ ...starved, calmProven: true });
    expect(r.run, r.detail).toBe(false);
    expect(r.detail).toMatch(/then nothing left to run\)$/);
    // Totals near a limit still count, proven calm or not.
    expect(heavyAdCheck({ ...quiet, cpuMs: 7_600, taskMs: 7_700, spanMs: 9_000, renderMs: 9_000, calmProven: true }).run).toBe(true);
  });

  it("runs a creative whose single long task the first run had to terminate", () => {
    const r = heavyAdCheck({ ...quiet, cpuMs: 900, taskMs: 4_000, spanMs: 30_000, renderMs: 28_000, heldMs: 4_000 });
    expect(r.run).toBe(true);
    expect(r.detail).toMatch(/kept the renderer's main thread busy \(4\.0 s of task time without a break\) until the first run terminated it/);
  });

  it("runs a creative whose main thread answered nothing even after its script was terminated", () => {
    const r = heavyAdCheck({ ...quiet, cpuMs: 500, taskMs: 500, spanMs: 400, renderMs: 4_000, unanswered: true });
    expect(r.run).toBe(true);
    expect(r.detail).toMatch(/answered nothing after the first run's render/);
  });

  it("marks the first run's CPU figures a lower bound when the main thread never answered", () => {
    const high = { confidence: "high" as const, reasons: [], fields: [] };
    expect(withCpuUnanswered(high, false)).toEqual({
      confidence: "low", reasons: [expect.stringMatching(/answered nothing after the render.*a lower bound/)], fields: ["cpu_usage"],
    });
    const pinned = { confidence: "low" as const, reasons: ["x: cpu is a lower bound"], fields: ["cpu"] };
    expect(withCpuUnanswered(pinned, true).fields).toEqual(["cpu", "cpu_usage"]);
    expect(withCpuUnanswered(high, true).fields).toEqual(["cpu_usage", "cpu"]);
  });

  it("finds the held stretch from the samples around a long task", () => {
    // Samples before a long task, then (DevTools answering between the loop's interrupts, or not at all on a starved
    // host) one after the cut.
    const series = [
      { t: 1_000, cpu: 0, busy: 0 }, { t: 1_250, cpu: 20, busy: 25 }, { t: 1_500, cpu: 30, busy: 40 },
      { t: 9_600, cpu: 7_900, busy: 8_030 },
    ];
    expect(firstRunTasks(series, true)).toEqual({ taskMs: 8_030, spanMs: 8_600, heldMs: 7_990 });
    // Not terminated: no held stretch, the task time still counts.
    expect(firstRunTasks(series, false)).toEqual({ taskMs: 8_030, spanMs: 8_600, heldMs: 0 });
    // Terminated, but the last stretch was mostly idle (a starved renderer, not a held one): nothing held.
    expect(firstRunTasks([{ t: 0, cpu: 0, busy: 0 }, { t: 4_000, cpu: 100, busy: 300 }], true).heldMs).toBe(0);
    expect(firstRunTasks([], true)).toEqual({ taskMs: 0, spanMs: 0, heldMs: 0 });
  });
});
