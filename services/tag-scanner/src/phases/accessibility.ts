import type { ScanTimeouts } from "../config.ts";
import { loadAxe, probeFrames, runDocumentChecks, tryPauseControl, type A11yArtifact, type FrameA11yProbe, type PauseArtifact } from "../gatherers/accessibility.ts";
import { bounded } from "../util.ts";
import { stepClock, type StepTimes } from "../gatherers/step-times.ts";
import type { PreparedPage } from "../prepared-page.ts";
import type { SyntheticSite } from "../synthetic-origin.ts";

/** Pixel changes are counted over this window before and after the pause click. */
const PAUSE_OBSERVE_MS = 1_500;

/**
 * axe-core into the top frame's isolated world, started by the measure phase once its screenshot is in (beside a
 * frame's layout probe on a loaded machine, a top frame compiling axe held the probe past its step: truth row
 * xo-iframe-300x600-paints-top measured its frame's stand-in box; beside the capture, the capture's frame). A framed bundle's top is our slot page (checked only when
 * the creative wrote into it): there axe goes into the slot's frame instead, when the creative is that one document.
 * With the consent sensor, only for a page of one frame: the scanner starts this once the sensor's Debugger is off
 * (bounded: past the bound it may still be on, and V8 caches no compile while it is) — with more frames, the first one
 * loaded in the checks after the release is what lets the others take axe from the cache. Resolves whether axe was
 * loaded; the checks load it where it is not.
 */
export function loadAxeTop(prepared: PreparedPage, site: SyntheticSite, stepMs: number): Promise<boolean> {
  const { worlds, mainFrameId } = prepared;
  return (async () => {
    if (site.slot) {
      // A framed bundle whose creative is one document: the slot's frame is the one axe must go into (the slot page
      // is checked only when the creative wrote into it), so it goes there now as a tag's top frame does — zip
      // `axe_checks` had axe's whole load in it (issue 22 §4: the framed render costs no more than the tag path).
      const frames = await worlds.frames();
      if (frames.length !== 2 || frames[1]!.parentId !== mainFrameId) return false;
      return loadAxe(worlds, frames[1]!.id, stepMs, { fresh: true });
    }
    if (prepared.consentSensor && (await worlds.frames()).length !== 1) return false;
    return loadAxe(worlds, mainFrameId, stepMs, { fresh: true });
  })();
}

/** The document checks and the frames' probe; the pause control comes later (pauseControl), once the page is back. */
export type A11yChecks = Omit<A11yArtifact, "pause"> & { controls: FrameA11yProbe["controls"] };

/**
 * The accessibility checks, after measuring (so that what they cost the renderer is not counted as the creative's
 * CPU), with the page as shown — before the responsiveness check narrows it, or once it has put it back — and before
 * the click-through (which leaves the creative): axe-core in every frame, the probe for pause controls, canvases and
 * images.
 */
export async function accessibilityPhase(prepared: PreparedPage, opts: {
  site: SyntheticSite;
  responsive: boolean;
  /** The scan's abort signal: an aborted scan ends with what it measured, without this phase. */
  signal?: AbortSignal;
  timeouts: Pick<ScanTimeouts, "stepMs">;
  jobDeadline: number;
  /**
   * Settles before axe-core runs (bounded by the step): the consent sensor's Debugger turned off, so that V8 compiles
   * axe once per renderer and every further frame takes it from its compilation cache.
   */
  before?: Promise<unknown>;
  /** axe's load into the top frame, started during the measure phase (loadAxeTop): the checks wait for it. */
  axeTop?: Promise<unknown>;
  /** Filled with each step's wall ms (the scan log). */
  steps?: StepTimes;
}): Promise<A11yChecks> {
  const { worlds } = prepared;
  const { stepMs } = opts.timeouts;
  if (!opts.responsive || opts.signal?.aborted) {
    const error = opts.signal?.aborted ? "the scan was aborted before they ran" : "the page did not answer";
    return { canvases: 0, images: 0, controls: [], document: { violations: [], rulesChecked: [], error, frames: 0, framesMissed: 0, ms: 0 } };
  }
  const left = () => opts.jobDeadline - Date.now() - stepMs;
  const steps = opts.steps;
  const since = (name: string) => { const clock = stepClock(steps); return <X>(v: X) => { clock(name); return v; }; };
  // The sensor's release matters for frames that load axe in the checks (the compilation cache): with axe loaded
  // already (a page of one frame, or no sensor), the checks need not wait for it.
  const sensorOff = opts.before && bounded(opts.before, stepMs, undefined).then(since("sensor_off"));
  const axeIn = opts.axeTop ? await bounded(opts.axeTop, stepMs, false).then(since("axe_top")) : false;
  if (!axeIn) await sensorOff;
  const step = stepClock(steps);
  const document = await runDocumentChecks(worlds, { ownTop: opts.site.hostPageIsWrapper || !!opts.site.slot, slotTop: !!opts.site.slot, stepMs, budgetMs: Math.max(0, Math.min(stepMs * 2, left())) });
  step("axe_checks");
  const probe = await probeFrames(worlds, Math.max(0, Math.min(stepMs, left())));
  step("a11y_probe");
  return { document, canvases: probe.canvases, images: probe.images, controls: probe.controls };
}

/**
 * WCAG 2.2.2, when the creative moved for more than about 5 s (the report decides exactly): the first pause control
 * the probe found tried, on the page as shown (the responsiveness check has put it back), while there is time.
 */
export async function pauseControl(prepared: PreparedPage, opts: {
  controls: FrameA11yProbe["controls"];
  /** The render watch ended with the creative still moving (endless or at the time-out). */
  stillMoving: boolean;
  timeouts: Pick<ScanTimeouts, "stepMs">;
  jobDeadline: number;
  signal?: AbortSignal;
}): Promise<PauseArtifact | undefined> {
  if (opts.signal?.aborted) return undefined;
  const left = opts.jobDeadline - Date.now() - opts.timeouts.stepMs;
  const first = opts.controls[0];
  return left > PAUSE_OBSERVE_MS * 2 + 2_000
    ? tryPauseControl(prepared.client, first, { stillMoving: opts.stillMoving, observeMs: PAUSE_OBSERVE_MS })
    : { control: first?.name ?? "", ...(first ? { outcome: "not_verified" as const } : {}) };
}
