import { pageFunction } from "./page-script.ts";

// The script every document of a scan runs before the creative's own code (page/instrument.js, injected by
// page-signals.ts with Page.addScriptToEvaluateOnNewDocument), reporting to Node through a CDP binding whose name is
// random per scan: the creative's timers, rAF calls, document.write, paints and video playback, which can only be
// seen in its own world. How it resists a creative that tries to forge its report is told beside the code.

/** What one realm (document) says about work that can still move pixels. Times are epoch ms. */
export interface RealmReport {
  t: "motion";
  realm: string;
  /** One-shot timeouts pending that are due before the horizon. */
  pending: number;
  /** Largest delay among pending timeouts scheduled from a timer callback (a setTimeout chain = a repeating source). */
  chainPeriod: number;
  /** Live intervals, and the largest period among them. */
  intervals: number;
  intervalPeriod: number;
  /** Last requestAnimationFrame call (0 = never). */
  raf: number;
  /** Timeouts pending that were scheduled within 5 s after a trusted pointer event (a click handler's work). */
  afterClick: number;
  /**
   * When a frame loop the last trusted pointer event started asked for its first frame (epoch ms; 0 = none): the
   * first requestAnimationFrame within 5 s after it, with none asked for in the 100 ms before it — a tween the click's
   * handler began (an exit button's press, GSAP's `onComplete` opening the clickTag when it ends). Whether it still
   * runs is `at - raf`.
   */
  rafClick: number;
  /** When the report was made: judged against `raf`, so a report delayed on a busy machine still reads right. */
  at: number;
  /**
   * Callbacks run so far by the repeating sources (timer chains, intervals). A repeating source counts as having
   * stopped moving pixels only after it fired without changing them: time alone would misjudge a page whose timers
   * fire late on a busy machine.
   */
  fires: number;
  /**
   * When a timeout or interval callback last ran (0 = never). What it changed may reach the screen only a frame or
   * more later — on a busy machine, much later — so stillness is counted from it as well as from the last pixel change.
   */
  lastFire: number;
  /**
   * Listeners and hooks registered for the events a creative stops or chains motion on (animation and transition
   * events, media `ended`/`timeupdate`, SMIL begin/end/repeat, a Web Animation's `finish`/`finished`). While any
   * exist, a running infinite animation is no proof of endless motion: the creative's own code may stop it.
   */
  stoppers: number;
  /**
   * What the creative's animation library (GSAP 3/2, Adobe Animate/CreateJS) says of its own timeline, read in its
   * world: epoch ms when its finite tweens, timelines and delayed calls end (0 = none left or no library); whether a
   * library was found and says everything of it is done (1) or not (0); whether one repeats forever (1). Used only to
   * extend the watch, or to bring a live ticker's hold back to the ordinary hold window — never to end it sooner.
   */
  tlEnd: number;
  tlDone: number;
  tlEndless: number;
  /**
   * requestIdleCallback callbacks pending. Not a reason to keep watching by itself (a page may keep one queued for
   * ever), but no page with one pending is proven calm (render-watch.ts, calmProof).
   */
  idle?: number;
}

export type PageSignal =
  | { t: "dw" }
  | { t: "paint"; name: string; at: number }
  | { t: "video" }
  | RealmReport;

/** Timers due later than this (from when they are set) cannot move pixels within any render window we use. */
const HORIZON_MS = 60_000;

/** What the render watch's probe dispatches on each frame's window to get a fresh report from its realm. */
export const pingEventOf = (bindingName: string): string => `${bindingName}_ping`;

const instrument = pageFunction<[binding: string, pingEvent: string, horizonMs: number]>(new URL("./page/instrument.js", import.meta.url), "instrument");

/** The script (page/instrument.js) for a scan whose binding is `bindingName`. */
export function instrumentSource(bindingName: string): string {
  return instrument(bindingName, pingEventOf(bindingName), HORIZON_MS);
}
