// The scanner process's own starvation over time (gatherers/loop-lag.ts): a loop held shows, where it was held.
import { describe, expect, it } from "vitest";
import { createLoopLag } from "../src/gatherers/loop-lag.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("loop lag", () => {
  it("counts the time the event loop could not run, inside the span asked about", async () => {
    const lag = createLoopLag();
    try {
      await sleep(100);
      const from = Date.now();
      // The loop held 400 ms, as a starved process is: no tick can run until it is free again.
      const until = Date.now() + 400;
      while (Date.now() < until) { /* held */ }
      await sleep(60);
      const to = Date.now();
      const held = lag.heldBetween(from, to);
      // At least the hold less one tick (the timer may have been due just before it began); at most the whole span.
      expect(held).toBeGreaterThanOrEqual(400 - 25);
      expect(held).toBeLessThanOrEqual(to - from);
      // Outside the hold, it counts nothing of it.
      expect(lag.heldBetween(from - 5_000, from - 1_000)).toBe(0);
      expect(lag.heldBetween(to + 1, to + 1_000)).toBe(0);
    } finally {
      lag.close();
    }
  });
});
