/**
 * When the page itself scheduled its visible finite animations to end (CSS animations and transitions, Web
 * Animations, SVG SMIL), from the render watch's probes. The pixel timeline (screencast) is the measure of motion, but
 * on a loaded machine the capture falls behind the page: Chromium sends the next screencast frame only after the last
 * one was acknowledged, and a transition that ends while a frame is in flight leaves no later frame to send — the
 * tail of the motion is never seen (CI: a 1 s transition read as 150 ms of changes, frames arriving 834 ms after
 * their timestamps). The end the page scheduled, confirmed by later probes, stands in for those dropped frames.
 *
 * An end counts only while the probes keep confirming it: a probe taken before a predicted end that no longer shows
 * an animation ending then (within MATCH_MS) means the animation was cancelled or restarted — the prediction is
 * dropped, never reported.
 */

/** Two probes' predictions of the same end may differ by the frame each one's timeline stood at. */
const MATCH_MS = 250;
/** A prediction within this of a probe's moment may have ended just before the look: not contradicted by it. */
const DUE_MS = 100;

export interface ScheduledEndTracker {
  /** A complete probe taken at epoch ms `at`, with the ends (epoch ms) of the visible running finite animations it saw. */
  observe(at: number, ends: number[]): void;
  /** The latest confirmed end at or before `until` (epoch ms); undefined when none. */
  latest(until: number): number | undefined;
}

export function createScheduledEndTracker(limit = 200): ScheduledEndTracker {
  let predicted: number[] = [];
  return {
    observe(at, ends) {
      const valid = ends.filter((e) => Number.isFinite(e) && e > 0).slice(0, limit);
      const near = (a: number, b: number) => Math.abs(a - b) <= MATCH_MS;
      // A prediction still due after this look must be seen again, or it was cancelled.
      predicted = predicted.filter((p) => p <= at + DUE_MS || valid.some((e) => near(e, p)));
      for (const e of valid) {
        const i = predicted.findIndex((p) => near(p, e));
        // The newer look is nearer its end: its frame clock is the better estimate.
        if (i >= 0) predicted[i] = e;
        else if (predicted.length < limit) predicted.push(e);
      }
    },
    latest(until) {
      let best: number | undefined;
      for (const p of predicted) if (p <= until && (best === undefined || p > best)) best = p;
      return best;
    },
  };
}
