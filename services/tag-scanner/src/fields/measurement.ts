import type { MetricsAnswer } from "../gatherers/performance.ts";
import type { MotionTail } from "./timing.ts";
/**
 * Whether the scan's time-based fields describe the creative or the machine. On a machine short of CPU the renderer's
 * main thread waits for a core: the creative's first paint comes late (time_to_visual_start, dom_content_loaded),
 * its timers fire late and its frames reach the screen late (animation_duration). Two measured signals, both from
 * Chromium and out of the creative's reach:
 *  - the renderer main thread's starvation: how much longer its tasks ran than their CPU time (TaskDuration −
 *    ThreadTime), sampled while the creative rendered, read at the moment each field was decided;
 *  - the first frame's lag: from the paint that drew it (its paintTime, on the main thread) to the screencast frame
 *    that showed it (the compositor and GPU process starved).
 *  - the creative's assets held by the scanner's own process: the event loop that answers request interception and
 *    relays the egress proxy's bytes was kept from the CPU while the asset loaded (gatherers/loop-lag.ts), so it
 *    arrived late — a timeline that starts when it arrives (an SVG image's SMIL, a late logo) ends late.
 *  - the renderer answering the scanner late while it had nothing of its own to run (idleLateness): the scanner's
 *    getMetrics requests, stamped by the renderer when its main thread handled them, waited for longer than the
 *    renderer's own tasks in the meantime explain — the browser process that relays them or the renderer itself was
 *    kept from running between tasks, which TaskDuration − ThreadTime (time inside tasks) cannot see. Measured: the
 *    browser process stopped for 1.2 s (SIGSTOP) 3.3 s into css-infinite-stopped-3rd-iteration read 4 304 against
 *    2 600..4 300 unmarked, its starvation 65 ms; a sample sent then was handled 1 048 ms late with 7 ms of tasks.
 * A field is low-confidence when the starvation up to its moment reached STARVED_MS — more than a field's
 * tolerance for a loaded worker allows to pass unnoticed — and the report says by how much.
 */
export interface MeasurementInput {
  /** Epoch ms of navigation start (the fields' origin). */
  navWallMs?: number;
  /** Epoch ms of the first paint as time_to_visual_start counts it; undefined when nothing painted. */
  firstPaintWallMs?: number;
  /** First-paint/first-contentful-paint times (epoch ms, paintTime) and screencast change times (epoch ms). */
  paints: number[];
  pixelChanges: number[];
  /** Epoch ms of DOMContentLoaded; undefined when it never fired. */
  dclWallMs?: number;
  /** Local ms when the render watch ended (animation_duration was decided). */
  renderEndedAt: number;
  /** Starvation samples of the render (performance.ts): at local ms `at`, `ms` starved since the render began. */
  starvation: Array<{ at: number; ms: number }>;
  /** The render's getMetrics samples as the renderer answered them (performance.ts MetricsAnswer). */
  answers?: MetricsAnswer[];
  /** The render watch's looks at the top document, each waiting for two rendered frames (render-watch.ts FrameWait). */
  frameWaits?: Array<{ from: number; to: number }>;
  /** The screencast's lag at its last change and the end the page scheduled (timing.ts MotionTail). */
  motionTail?: MotionTail;
  /**
   * The creative's finished requests: when each arrived (epoch ms) and how long the scanner's own process was kept
   * from the CPU while it loaded (loop-lag.ts), an upper bound on how late that made it.
   */
  assets?: HeldAsset[];
  /**
   * The click-through gave up at its bound (LandingArtifact.unfinished): how long the scanner's own process was kept
   * from the CPU meanwhile (loop-lag.ts). The landing page's requests pass through it as the creative's do.
   */
  landingHeldMs?: number;
}

export interface HeldAsset {
  /** Client-safe: the creative's own URL's last path segment (the reason names it). */
  name: string;
  arrivedWallMs: number;
  heldMs: number;
}

export interface MeasurementOutcome {
  confidence: "high" | "low";
  reasons: string[];
  /** API names of the fields the starvation may have moved. */
  fields: string[];
}

/** Starvation that may move a timing beyond the tolerance a loaded worker is allowed (the truth corpus: ±0.4–0.7 s). */
export const STARVED_MS = 250;

/** How far the screen capture's timestamps and the paint timing's may disagree, ms (both are the host's wall clock). */
const PAINT_SKEW_MS = 20;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Starvation accumulated by local time `t`: the first sample taken at or after it (samples are cumulative, so this
 * bounds it from above by at most one sampling interval), else the last one.
 */
export function starvedBy(samples: MeasurementInput["starvation"], t: number): number {
  if (samples.length === 0) return 0;
  for (const s of samples) if (s.at >= t) return s.ms;
  return samples[samples.length - 1]!.ms;
}

/** A request of the scanner's that the renderer handled late with no task of its own to explain it. */
export interface IdleLate {
  /** Local epoch ms: the request went out, and when the renderer handled it (sent + late). */
  from: number;
  to: number;
  /** ms of the wait that the renderer's own tasks do not explain. */
  ms: number;
}

/**
 * The renderer's clock less ours, as near as the answers give it: each answer's Timestamp less its send time is that
 * offset plus the request's wait, and the least of them had (nearly) none.
 */
const clockOffset = (answers: MetricsAnswer[]) => Math.min(...answers.map((a) => a.t - a.sent));

/**
 * The waits of the scanner's getMetrics requests that the renderer's own work does not explain. Each answer's
 * Timestamp (renderer clock) less its local send time is the two clocks' offset plus the wait before the renderer
 * handled it; the least of them over the render is the offset with (nearly) no wait, so each one's excess is its
 * wait. A wait behind the creative's own tasks is the creative's, counted in TaskDuration: the renderer's task time
 * from the last answer it handled before this request went out to this one's (which may begin before the request
 * went out, so it errs towards explaining) is taken off. What remains is time in which neither the browser relaying
 * the request nor the renderer's main thread got to run. On a quiet machine it stayed under 80 ms (the page's load
 * included); see STARVED_MS.
 */
export function idleLateness(answers: MetricsAnswer[]): IdleLate[] {
  if (answers.length < 2) return [];
  const base = clockOffset(answers);
  const out: IdleLate[] = [];
  for (const a of answers) {
    // The last answer the renderer handled before this request could have reached it (renderer clock).
    let prev: MetricsAnswer | undefined;
    for (const b of answers) if (b !== a && b.t <= a.sent + base && (prev === undefined || b.t > prev.t)) prev = b;
    if (prev === undefined) continue;
    const tasks = a.busy - prev.busy;
    // A smaller TaskDuration than before: another renderer process (a navigation) — its tasks are unknown.
    if (tasks < 0) continue;
    const late = a.t - a.sent - base;
    if (late - tasks > 0) out.push({ from: a.sent, to: a.sent + late, ms: Math.round(late - tasks) });
  }
  return out;
}

/** What two rendered frames take when nothing holds them (two vsyncs at 60 Hz, and the look itself), ms. */
const TWO_FRAMES_MS = 50;

/**
 * The render watch's looks whose two rendered frames came late with the renderer's main thread free: the wait less
 * the renderer's task time around it (TaskDuration from the getMetrics answers that bracket it, by when the renderer
 * handled them — more than the window, so it errs towards explaining) less two frames' time. What remains is time in
 * which the page's frames did not come although its main thread could have drawn them: the compositor or the GPU
 * process was kept from running. A storyboard's hold does not show here — a page that asks for frames gets them
 * whether or not its pixels change — and neither does a creative's own long task (it is TaskDuration).
 */
export function frameStalls(waits: Array<{ from: number; to: number }>, answers: MetricsAnswer[]): IdleLate[] {
  if (answers.length < 2 || waits.length === 0) return [];
  const base = clockOffset(answers);
  const handled = answers.map((a) => ({ at: a.t - base, busy: a.busy })).sort((x, y) => x.at - y.at);
  const out: IdleLate[] = [];
  for (const w of waits) {
    let before: (typeof handled)[number] | undefined, after: (typeof handled)[number] | undefined;
    for (const h of handled) {
      if (h.at <= w.from) before = h;
      else if (h.at >= w.to && after === undefined) after = h;
    }
    // Not bracketed, or another renderer's count (a navigation): its tasks are unknown.
    if (!before || !after || after.busy < before.busy) continue;
    const ms = Math.round(w.to - w.from - (after.busy - before.busy) - TWO_FRAMES_MS);
    if (ms > 0) out.push({ from: w.from, to: w.to, ms });
  }
  return out;
}

export function measurementConfidence(m: MeasurementInput): MeasurementOutcome {
  const reasons: string[] = [];
  const fields = new Set<string>();
  if (m.firstPaintWallMs !== undefined) {
    const s = starvedBy(m.starvation, m.firstPaintWallMs);
    if (s >= STARVED_MS) {
      fields.add("time_to_visual_start");
      reasons.push(`the renderer was kept from the CPU for ${seconds(s)} before the first paint`);
    }
  }
  if (m.dclWallMs !== undefined) {
    const s = starvedBy(m.starvation, m.dclWallMs);
    if (s >= STARVED_MS) {
      fields.add("dom_content_loaded");
      if (!fields.has("time_to_visual_start")) reasons.push(`the renderer was kept from the CPU for ${seconds(s)} before DOMContentLoaded`);
    }
  }
  const during = starvedBy(m.starvation.filter((s) => s.at <= m.renderEndedAt + 1_000), m.renderEndedAt);
  if (during >= STARVED_MS) {
    fields.add("animation_duration");
    reasons.push(`the renderer was kept from the CPU for ${seconds(during)} while the creative rendered`);
  }
  // Assets held by the scanner's own network path: one that arrived before the first paint (or DOMContentLoaded) may
  // have held it back; one that arrived while the creative moved may have started its motion late.
  const assets = m.assets ?? [];
  const worstHeld = (from: number, to: number) => assets
    .filter((a) => a.arrivedWallMs > from && a.arrivedWallMs <= to && a.heldMs >= STARVED_MS)
    .reduce<HeldAsset | undefined>((w, a) => (w === undefined || a.heldMs > w.heldMs ? a : w), undefined);
  const heldReason = (a: HeldAsset, when: string) =>
    `the creative's ${a.name} (arrived ${when}) loaded while the scanner's own network path (request interception, egress proxy) was kept from the CPU for ${seconds(a.heldMs)}`;
  const nav = m.navWallMs ?? -Infinity;
  // animation_duration counts from the first paint: a first paint held back shortens the motion after it (measured:
  // svg-smil-delayed, whose SMIL runs on the document's clock, read 1 907 against 2 000–3 700 with its page held
  // 0.3 s and its first paint at 1.3 s).
  const movedAfterPaint = m.firstPaintWallMs !== undefined && m.pixelChanges.filter((c) => c > m.firstPaintWallMs!).length > 0;
  // The renderer (or the browser relaying to it) kept from running between tasks: a wait in a window that overlaps the
  // field's span may have delayed what the field times (its first paint, its timers' and animation events' effects).
  const idle = idleLateness(m.answers ?? []).filter((w) => w.ms >= STARVED_MS);
  const worstIdle = (from: number, to: number) => idle
    .filter((w) => w.to > from && w.from < to)
    .reduce<IdleLate | undefined>((x, w) => (x === undefined || w.ms > x.ms ? w : x), undefined);
  const idleReason = (w: IdleLate, when: string) =>
    `the renderer answered the scanner ${seconds(w.ms)} late ${when} with no work of its own to explain it (the browser or the renderer was kept from running)`;
  if (m.firstPaintWallMs !== undefined) {
    const w = worstIdle(m.navWallMs ?? -Infinity, m.firstPaintWallMs);
    if (w) {
      if (!fields.has("time_to_visual_start")) reasons.push(idleReason(w, "before the first paint"));
      fields.add("time_to_visual_start");
      // As for a held asset: a first paint held back shortens the motion counted from it.
      if (movedAfterPaint) fields.add("animation_duration");
    }
  }
  if (m.dclWallMs !== undefined) {
    const w = worstIdle(m.navWallMs ?? -Infinity, m.dclWallMs);
    if (w) {
      if (!fields.has("dom_content_loaded") && !fields.has("time_to_visual_start")) reasons.push(idleReason(w, "before DOMContentLoaded"));
      fields.add("dom_content_loaded");
    }
  }
  {
    const w = worstIdle(m.firstPaintWallMs ?? m.navWallMs ?? -Infinity, m.renderEndedAt);
    if (w) {
      if (!fields.has("animation_duration")) reasons.push(idleReason(w, "while the creative rendered"));
      fields.add("animation_duration");
    }
  }
  if (m.firstPaintWallMs !== undefined && !fields.has("time_to_visual_start")) {
    const a = worstHeld(nav, m.firstPaintWallMs);
    if (a) {
      fields.add("time_to_visual_start");
      if (movedAfterPaint) fields.add("animation_duration");
      reasons.push(heldReason(a, "before the first paint"));
    }
  }
  if (m.dclWallMs !== undefined && !fields.has("dom_content_loaded")) {
    const a = worstHeld(nav, m.dclWallMs);
    if (a) {
      fields.add("dom_content_loaded");
      if (!reasons.some((r) => r.startsWith(`the creative's ${a.name} `))) reasons.push(heldReason(a, "before DOMContentLoaded"));
    }
  }
  const lastChange = m.pixelChanges[m.pixelChanges.length - 1];
  if (m.firstPaintWallMs !== undefined && lastChange !== undefined) {
    const a = worstHeld(m.firstPaintWallMs, lastChange);
    if (a) {
      fields.add("animation_duration");
      reasons.push(heldReason(a, "while the creative moved"));
    }
  }
  const paint = m.paints.length > 0 ? Math.min(...m.paints) : undefined;
  const shown = paint === undefined ? undefined : m.pixelChanges.find((c) => c >= paint);
  const firstFrameLag = paint !== undefined && shown !== undefined ? shown - paint : 0;
  if (firstFrameLag >= STARVED_MS) {
    fields.add("animation_duration");
    reasons.push(`the first frame reached the screen ${seconds(firstFrameLag)} after it was painted (the compositor was starved)`);
  }
  // A paint that no captured frame followed: the renderer drew something new (a paint timing entry — the headline of
  // css-transition-after-timeout appearing as its slide began) and the screen capture never showed it, so the motion
  // after it went unseen. Measured in a clean-clone CI under deliberate overload: paints at 184 and 681 ms, changes at
  // -10 and 255 ms, the 1 s slide from 680 ms read animation_duration 0. The capture's clock and the paint's are the
  // same wall clock, a few ms apart (PAINT_SKEW_MS).
  const unseen = m.paints.find((p) => p <= m.renderEndedAt && !m.pixelChanges.some((c) => c >= p - PAINT_SKEW_MS));
  if (unseen !== undefined && m.navWallMs !== undefined && firstFrameLag < STARVED_MS) {
    fields.add("animation_duration");
    reasons.push(`the creative painted at ${seconds(unseen - m.navWallMs)} and no frame after it reached the screen capture (the compositor or the capture was starved)`);
  }
  // The page's frames stalled while its main thread was free, after the first paint and before the watch ended: the
  // motion the compositor ran meanwhile (a CSS animation stopped on its 3rd iteration) reached the screen late.
  // Measured: the GPU process stopped for 1.2 s 3.3 s into css-infinite-stopped-3rd-iteration read 4 332 ms against
  // 2 600..4 300 with nothing marked.
  if (m.firstPaintWallMs !== undefined) {
    const stalled = frameStalls(m.frameWaits ?? [], m.answers ?? [])
      .filter((w) => w.ms >= STARVED_MS && w.from >= m.firstPaintWallMs! && w.from <= m.renderEndedAt)
      .reduce<IdleLate | undefined>((x, w) => (x === undefined || w.ms > x.ms ? w : x), undefined);
    if (stalled) {
      fields.add("animation_duration");
      reasons.push(`the page's frames stopped for ${seconds(stalled.ms)} while its main thread was free (the compositor or the GPU process was kept from running)`);
    }
  }
  // A capture far behind at the last change may have dropped the motion's tail; an end the page scheduled covers it
  // for CSS/Web/SMIL animations (timing.ts motionEnd), nothing does for script-driven motion.
  const tail = m.motionTail;
  const last = m.pixelChanges[m.pixelChanges.length - 1];
  const moved = m.firstPaintWallMs !== undefined && m.pixelChanges.filter((c) => c >= m.firstPaintWallMs!).length > 1;
  if (tail && moved && last !== undefined && tail.captureLagMs >= STARVED_MS && !(tail.scheduledEnd !== undefined && tail.scheduledEnd >= last)) {
    fields.add("animation_duration");
    reasons.push(`the screen capture ran ${seconds(tail.captureLagMs)} behind the page when the motion was last seen`);
  }
  // A landing page that had not answered when its bound ran out reads as "not working" (or no tab at all): on a
  // starved scanner that is the machine's delay. Measured: a click tracker's two redirects took 10.4 s against 8 s
  // beside two busy loops a core, and its landing read "none, not working".
  if (m.landingHeldMs !== undefined && m.landingHeldMs >= STARVED_MS) {
    fields.add("landing_page");
    reasons.push(`the landing page had not answered when its wait ran out, while the scanner's own network path was kept from the CPU for ${seconds(m.landingHeldMs)}`);
  }
  return fields.size === 0 ? { confidence: "high", reasons: [], fields: [] } : { confidence: "low", reasons, fields: [...fields] };
}
