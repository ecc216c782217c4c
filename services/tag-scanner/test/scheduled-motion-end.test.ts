import { describe, expect, it } from "vitest";
import { createScheduledEndTracker } from "../src/gatherers/scheduled-motion-end.ts";

describe("scheduled motion end", () => {
  it("keeps an end the later probes confirm, refined by the newer look", () => {
    const t = createScheduledEndTracker();
    t.observe(1_000, [2_500]);
    t.observe(1_200, [2_480]);
    t.observe(2_700, []); // ended: the look after its end sees nothing, which contradicts nothing
    expect(t.latest(3_000)).toBe(2_480);
  });

  it("drops an end a look before it no longer shows: the animation was cancelled or restarted", () => {
    const t = createScheduledEndTracker();
    t.observe(1_000, [5_000]);
    t.observe(1_400, []);
    expect(t.latest(9_000)).toBeUndefined();
    // Restarted: the old end is gone, the new one stands.
    t.observe(1_600, [3_000]);
    t.observe(1_800, [3_900]);
    expect(t.latest(9_000)).toBe(3_900);
  });

  it("only ends at or before the moment asked about, and never junk", () => {
    const t = createScheduledEndTracker(3);
    t.observe(1_000, [Number.NaN, -5, 1_500, 9_000, 20_000, 30_000]);
    expect(t.latest(2_000)).toBe(1_500);
    expect(t.latest(10_000)).toBe(9_000);
  });
});
