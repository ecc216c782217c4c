import { describe, expect, it } from "vitest";
import { createMotionTracker } from "../src/gatherers/motion.ts";

const report = (realm: string, o: Partial<{ pending: number; intervals: number; anims: number; last: number }> = {}) =>
  ({ t: "motion" as const, realm, pending: 0, intervals: 0, anims: 0, last: 0, ...o });

describe("motion tracker", () => {
  it("is never calm before any realm reported", () => {
    expect(createMotionTracker().calm(10_000, 500)).toBe(false);
  });

  it("is calm only when no realm has anything scheduled or recent activity", () => {
    const m = createMotionTracker();
    m.note(report("top", { last: 9_000 }));
    expect(m.calm(9_400, 500)).toBe(false);
    expect(m.calm(9_600, 500)).toBe(true);
    m.note(report("iframe", { pending: 1 }));
    expect(m.calm(20_000, 500)).toBe(false);
    m.note(report("iframe", { intervals: 1 }));
    expect(m.calm(20_000, 500)).toBe(false);
    m.note(report("iframe", { anims: 1 }));
    expect(m.calm(20_000, 500)).toBe(false);
    m.note(report("iframe"));
    expect(m.calm(20_000, 500)).toBe(true);
  });

  it("treats garbage from a hostile page as activity-free numbers, not as a crash", () => {
    const m = createMotionTracker();
    m.note({ t: "motion", realm: "x", pending: "lots" as unknown as number, intervals: NaN, anims: -1, last: Infinity });
    expect(m.calm(0, 500)).toBe(false);
  });
});
