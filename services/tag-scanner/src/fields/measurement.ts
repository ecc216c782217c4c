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
  if (paint !== undefined && shown !== undefined && shown - paint >= STARVED_MS) {
    fields.add("animation_duration");
    reasons.push(`the first frame reached the screen ${seconds(shown - paint)} after it was painted (the compositor was starved)`);
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
