// The gatherers' phase loop (gatherers/gatherer.ts) without a browser: every gatherer gets each phase, in the list's
// order and before any is awaited; a failure or an overrun is recorded with its gatherer and phase, and the others
// still run.
import { describe, expect, it } from "vitest";
import { runPhase, type Gatherer, type GatherPhase, type RenderStart } from "../src/gatherers/gatherer.ts";

function fake(name: string, calls: string[], behave: Partial<Record<GatherPhase, () => Promise<void> | void>> = {}): Gatherer<string[]> {
  const note = (phase: GatherPhase) => () => {
    calls.push(`${name}.${phase}`);
    return behave[phase]?.();
  };
  return {
    name, artifact: calls,
    start: async () => { await note("start")(); },
    beginRender: (scan: RenderStart) => { calls.push(`${name}.beginRender ${scan.viewport.width}x${scan.viewport.height}`); },
    endCreative: note("endCreative"),
    stop: note("stop"),
  };
}

describe("runPhase", () => {
  it("calls the phase on every gatherer in order, synchronously, and skips gatherers without it", async () => {
    const calls: string[] = [];
    const list = [fake("a", calls), fake("b", calls)];
    const done = runPhase(list, "endCreative");
    // Both ended before anything was awaited: a synchronous phase takes effect for all gatherers at once.
    expect(calls).toEqual(["a.endCreative", "b.endCreative"]);
    expect(await done).toEqual([]);
    expect(await runPhase(list, "endRender")).toEqual([]);
    expect(calls).toHaveLength(2);
    await runPhase(list, "beginRender", { scan: { viewport: { width: 390, height: 844 } } });
    expect(calls.slice(2)).toEqual(["a.beginRender 390x844", "b.beginRender 390x844"]);
  });

  it("records a gatherer that throws, rejects or overruns, and still runs the others", async () => {
    const calls: string[] = [];
    const list = [
      fake("throws", calls, { stop: () => { throw new Error("boom"); } }),
      fake("rejects", calls, { stop: () => Promise.reject(new Error("gone")) }),
      fake("hangs", calls, { stop: () => new Promise<void>(() => {}) }),
      fake("fine", calls),
    ];
    const t0 = Date.now();
    const errors = await runPhase(list, "stop", { ms: 100 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(calls).toEqual(["throws.stop", "rejects.stop", "hangs.stop", "fine.stop"]);
    expect(errors).toEqual([
      { gatherer: "throws", phase: "stop", error: "boom" },
      { gatherer: "rejects", phase: "stop", error: "gone" },
      { gatherer: "hangs", phase: "stop", error: "did not finish within 100 ms" },
    ]);
  });

  it("waits for every gatherer to start", async () => {
    const calls: string[] = [];
    let release!: () => void;
    const slow = fake("slow", calls, { start: () => new Promise<void>((r) => { release = r; }) });
    let settled = false;
    const done = runPhase([slow, fake("quick", calls)], "start").then((e) => { settled = true; return e; });
    await new Promise((r) => setImmediate(r)); // everything already settled would have by now
    expect(calls).toEqual(["slow.start", "quick.start"]);
    expect(settled).toBe(false);
    release();
    expect(await done).toEqual([]);
  });
});
