// The process re-encodes at most maxPixels at once across zips: big images one after another (each costs up to
// ~200 MiB outside any worker heap), banner-sized ones side by side, first come first served.
import { describe, expect, it } from "vitest";
import { createPixelGate } from "../src/fields/pixel-gate.ts";

describe("pixel gate", () => {
  it("lets small images run side by side and a full-size one alone, in arrival order", async () => {
    const gate = createPixelGate(4_000_000);
    const order: string[] = [];
    const a = await gate.take(75_000);
    const b = await gate.take(75_000);
    const big = gate.take(4_000_000).then((r) => (order.push("big"), r));
    // Arrived after the big one: waits behind it although it would fit now.
    const small = gate.take(75_000).then((r) => (order.push("small"), r));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]);
    a();
    b();
    const releaseBig = await big;
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(["big"]);
    releaseBig();
    (await small)();
    expect(order).toEqual(["big", "small"]);
    // An image over the capacity takes all of it rather than waiting forever.
    (await gate.take(40_000 * 40_000))();
  });

  it("gives up a wait when the caller's time is up, and lets the next one through", async () => {
    const gate = createPixelGate(100);
    const held = await gate.take(100);
    const stop = new AbortController();
    const waiting = gate.take(100, stop.signal);
    const next = gate.take(10);
    stop.abort(new Error("out of time"));
    await expect(waiting).rejects.toThrow("out of time");
    held();
    (await next)();
  });
});
