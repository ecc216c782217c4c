/**
 * Time to visual start: the earliest evidence of painted pixels — first-paint / first-contentful-paint of any frame
 * (PerformanceObserver, epoch ms) or the first screencast frame that differed from the blank page, whichever came
 * first. Both are needed: Chromium withholds FCP for content that fades in from opacity 0 until the fade ends, while
 * the screencast sees the first translucent frame; -1 when nothing was painted.
 */
export function timeToVisualStart(navWallMs: number | undefined, paints: number[], firstPixelChange: number | undefined, rendered: boolean): number {
  if (!rendered || navWallMs === undefined) return -1;
  const candidates = paints.filter((p) => p >= navWallMs - 1000);
  if (firstPixelChange !== undefined) candidates.push(firstPixelChange);
  if (candidates.length === 0) return -1;
  const first = Math.min(...candidates);
  return Math.max(0, Math.round(first - navWallMs));
}

/** How the end of the pixel timeline may be corrected: see motionEnd. */
export interface MotionTail {
  /** How far behind the page the screencast was at its last change, ms. */
  captureLagMs: number;
  /** Epoch ms when the page's visible finite animations were scheduled to end (probes confirmed it); undefined if none. */
  scheduledEnd?: number;
}

/**
 * A capture this far behind at its last frame may have dropped the tail of the motion: Chromium sends the next
 * screencast frame only once the previous one is acknowledged, so what the page drew and finished meanwhile is never
 * sent (a quiet machine's capture runs 10–60 ms behind; CI under load saw 834 ms).
 */
export const CAPTURE_BEHIND_MS = 120;

/**
 * The end of the motion: the last pixel change — or, when the capture ran behind at that change, the end the page
 * itself scheduled for its visible animations, if that is later (the frames showing it were dropped, see above).
 */
export function motionEnd(changes: number[], tail?: MotionTail): number | undefined {
  if (changes.length === 0) return undefined;
  const last = changes[changes.length - 1]!;
  if (tail?.scheduledEnd !== undefined && tail.captureLagMs >= CAPTURE_BEHIND_MS && tail.scheduledEnd > last) return tail.scheduledEnd;
  return last;
}

/**
 * Animation duration: from the first painted pixel to the end of the motion (motionEnd: the last pixel change, from
 * the screencast), in ms; -1 when the pixels were still changing when the watch ended. The first screencast change
 * at or after the first paint is that paint reaching the screen, not motion: a creative whose pixels never changed
 * after it is static, 0 — however late a starved compositor presented that frame (a static 300x250 read 766 ms on an
 * overloaded machine, 23 ms on a quiet one, the lag between its paint and its frame).
 */
export function animationDuration(firstPaintWallMs: number | undefined, changes: number[], stillMoving: boolean, tail?: MotionTail): number {
  if (stillMoving) return -1;
  if (firstPaintWallMs === undefined || changes.length === 0) return 0;
  if (changes.filter((c) => c >= firstPaintWallMs).length <= 1) return 0;
  const last = motionEnd(changes, tail)!;
  return Math.max(0, Math.round(last - firstPaintWallMs));
}

/** A monotonic CDP timestamp (s) relative to navigation start, in ms; -1 when the event never came. */
export function sinceNav(navTs: number | undefined, ts: number | undefined): number {
  if (navTs === undefined || ts === undefined) return -1;
  return Math.max(0, Math.round((ts - navTs) * 1000));
}
