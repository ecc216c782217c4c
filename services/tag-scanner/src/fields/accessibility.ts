import type { FlashArtifact } from "../gatherers/flashes.ts";
import { IN_FLIGHT_LIMIT } from "../gatherers/screencast.ts";

/** WCAG 2.2.2: motion that lasts more than five seconds needs a way to pause it. */
export const MOTION_LIMIT_MS = 5_000;

export interface FlashFields {
  maxFlashesPerSecond: number;
  maxRedFlashesPerSecond: number;
  redFlash: boolean;
  flashRisk: boolean;
  worstSecondMs: bigint;
  flashesJudged: boolean;
  flashesNotJudgedReason: string;
  framesAnalyzed: number;
  flashAreaThresholdPx: bigint;
}

/**
 * The photosensitivity fields from the flash gatherer. A risk seen is a risk (missed frames only hide transitions);
 * no risk is a verdict only when no frame can have been missed while the creative changed: frames that arrived late
 * (the screencast drops frames while earlier ones wait) or were left undecoded make it "not judged", with the reason.
 * A starved renderer (measurement confidence low) makes a pass "not judged" too: it may not have drawn every state.
 * Times are ms after `renderStartMs` (the navigation to the creative, epoch ms).
 */
export function flashFields(f: FlashArtifact | undefined, renderStartMs: number, starved?: string): FlashFields {
  const r = f?.result;
  if (!f || !r) {
    return {
      maxFlashesPerSecond: 0, maxRedFlashesPerSecond: 0, redFlash: false, flashRisk: false, worstSecondMs: -1n,
      flashesJudged: false, flashesNotJudgedReason: "no frames were captured", framesAnalyzed: 0, flashAreaThresholdPx: 0n,
    };
  }
  const risk = r.generalFails || r.redFails;
  let reason = "";
  if (!risk) {
    const hiding = couldHideRisk(f, r.transitions) || couldHideRisk(f, r.redTransitions);
    const blindMs = f.blind.reduce((s, [a, b]) => s + Math.max(0, Math.min(b, f.lastAt) - Math.max(a, f.firstAt)), 0);
    if (f.frames > 0 && f.decoded === 0) reason = "no frame could be decoded";
    else if (f.skipped > 0) reason = `${f.skipped} of ${f.frames} changed frames were not analysed (over the decode budget or backlog)`;
    // A starved renderer draws late or not at all: the flashes it should have drawn may never have reached a frame.
    else if (starved && f.frames > 1) reason = `the renderer was starved of CPU while it rendered (${starved}): frames it should have drawn may never have been drawn`;
    else if (hiding) reason = `for ${Math.round(blindMs)} ms of the motion the screencast had ${IN_FLIGHT_LIMIT} frames waiting (frames up to ${Math.round(f.maxDelayMs)} ms late) and may have dropped enough frames to hide more than three flashes in a second`;
  }
  return {
    maxFlashesPerSecond: r.maxFlashesPerSecond,
    maxRedFlashesPerSecond: r.maxRedFlashesPerSecond,
    redFlash: r.redFails,
    flashRisk: risk,
    worstSecondMs: BigInt(r.worstSecondMs >= 0 ? Math.max(0, Math.round(r.worstSecondMs - renderStartMs)) : -1),
    flashesJudged: reason === "",
    flashesNotJudgedReason: reason,
    framesAnalyzed: f.decoded,
    flashAreaThresholdPx: BigInt(r.areaThresholdPx),
  };
}

/** One display frame (60 Hz): no two captures of a state come closer. */
const VSYNC_MS = 1000 / 60;

/**
 * Whether the frames that may have been dropped (blind time) could hide a failing second: in some 1 s window, the
 * transitions counted plus two per frame that could have been captured and dropped in its blind time (each dropped
 * frame hides at most one state: two transitions) reach more than three flashes. Windows every 50 ms over the motion.
 */
export function couldHideRisk(f: Pick<FlashArtifact, "blind" | "firstAt" | "lastAt">, transitions: number[]): boolean {
  const blind = f.blind.filter(([a, b]) => b > f.firstAt && a < f.lastAt);
  if (blind.length === 0) return false;
  for (let w = f.firstAt - 1_000; w <= f.lastAt; w += 50) {
    let b = 0;
    for (const [x, y] of blind) b += Math.max(0, Math.min(y, w + 1_000, f.lastAt) - Math.max(x, w, f.firstAt));
    if (b <= 0) continue;
    const seen = transitions.filter((t) => t >= w && t < w + 1_000).length;
    if (Math.floor((seen + 2 * Math.ceil(b / VSYNC_MS)) / 2) > 3) return true;
  }
  return false;
}

/** Motion over 5 s: the animation duration (from first paint) beyond it, or endless (-1). */
export function motionOver5s(animationDurationMs: number, rendered: boolean): boolean {
  return rendered && (animationDurationMs === -1 || animationDurationMs > MOTION_LIMIT_MS);
}
