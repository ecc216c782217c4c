import { describe, expect, it } from "vitest";
import { TIMED_OUT, bounded, timerMs, within } from "../src/util.ts";

describe("time bounds", () => {
  it("a bound of Infinity or NaN means no bound, not a 1 ms timer (Node's overflow rule)", async () => {
    expect(timerMs(Number.POSITIVE_INFINITY)).toBe(2 ** 31 - 1);
    expect(timerMs(Number.NaN)).toBe(2 ** 31 - 1);
    expect(timerMs(2 ** 40)).toBe(2 ** 31 - 1);
    expect(timerMs(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(timerMs(-5)).toBe(0);
    expect(timerMs(250)).toBe(250);
    const late = new Promise<string>((r) => setTimeout(() => r("answered"), 30));
    expect(await within(late, Number.POSITIVE_INFINITY)).toBe("answered");
    expect(await bounded(new Promise<string>((r) => setTimeout(() => r("answered"), 30)), Number.NaN, "fallback")).toBe("answered");
  });

  it("a finite bound still times out", async () => {
    expect(await within(new Promise(() => {}), 10)).toBe(TIMED_OUT);
    expect(await bounded(new Promise(() => {}), 0, "fallback")).toBe("fallback");
  });
});
