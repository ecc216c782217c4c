import type { PageSignal } from "./instrument.ts";

type MotionReport = Extract<PageSignal, { t: "motion" }>;

/**
 * What every realm (document) of the creative last said about scheduled motion. The scan may stop watching pixels
 * early only on positive evidence: at least one realm reported, and none has pending timers, live intervals, running
 * or pending animations, or rAF/timer activity within the settle time. Anything else — including silence — keeps the
 * full quiet window, so a timeline that pauses and resumes is still measured to its real end.
 */
export function createMotionTracker() {
  const realms = new Map<string, MotionReport>();
  return {
    note(msg: MotionReport): void {
      if (typeof msg.realm !== "string" || realms.size > 200) return;
      realms.set(msg.realm, {
        t: "motion",
        realm: msg.realm,
        pending: Number(msg.pending) || 0,
        intervals: Number(msg.intervals) || 0,
        anims: Number(msg.anims) || 0,
        last: Number(msg.last) || 0,
      });
    },
    calm(nowMs: number, settleMs: number): boolean {
      if (realms.size === 0) return false;
      for (const r of realms.values()) {
        if (r.pending > 0 || r.intervals > 0 || r.anims > 0 || nowMs - r.last < settleMs) return false;
      }
      return true;
    },
  };
}
