import type { DeviceProfile, ScanTimeouts } from "../config.ts";
import { loadAxe, probeFrames, runDocumentChecks, tryPauseControl, type A11yArtifact } from "../gatherers/accessibility.ts";
import { pageFunction } from "../gatherers/page-script.ts";
import { bounded } from "../util.ts";
import { stepClock, type StepTimes } from "../gatherers/step-times.ts";
import type { PreparedPage } from "../prepared-page.ts";
import type { SyntheticSite } from "../synthetic-origin.ts";

const TWO_FRAMES = pageFunction<[fallbackMs: number]>(new URL("../gatherers/page/two-frames.js", import.meta.url), "twoFrames")(500);
const setSlotWidth = pageFunction<[width: number]>(new URL("../gatherers/page/slot-width.js", import.meta.url), "setSlotWidth");

/** Pixel changes are counted over this window before and after the pause click. */
const PAUSE_OBSERVE_MS = 1_500;

/**
 * The accessibility phase, after measuring (so that what it costs the renderer is not counted as the creative's CPU)
 * and before the click-through (which leaves the creative): axe-core in every frame, the probe for pause controls,
 * canvases and images, then — when the creative moved for more than 5 s — the pause control tried.
 */
export async function accessibilityPhase(prepared: PreparedPage, opts: {
  site: SyntheticSite;
  profile: DeviceProfile;
  /** The page was left at the measure phase's narrower width: it is put back first (contrast and controls as shown). */
  narrowed: boolean;
  responsive: boolean;
  /** The scan's abort signal: an aborted scan ends with what it measured, without this phase. */
  signal?: AbortSignal;
  /** The render watch ended with the creative still moving (endless or at the time-out). */
  stillMoving: boolean;
  /** The creative moved for more than about 5 s: a pause control is needed (the report decides exactly). */
  longMotion: boolean;
  timeouts: Pick<ScanTimeouts, "stepMs">;
  jobDeadline: number;
  /**
   * Settles before axe-core runs (bounded by the step): the consent sensor's Debugger turned off, so that V8 compiles
   * axe once per renderer and every further frame takes it from its compilation cache (a page of one frame loads it
   * into its top frame meanwhile: nothing to cache for).
   */
  before?: Promise<unknown>;
  /** Filled with each step's wall ms (the scan log). */
  steps?: StepTimes;
}): Promise<A11yArtifact> {
  const { worlds, client } = prepared;
  const { stepMs } = opts.timeouts;
  if (!opts.responsive || opts.signal?.aborted) {
    const error = opts.signal?.aborted ? "the scan was aborted before they ran" : "the page did not answer";
    return { canvases: 0, images: 0, document: { violations: [], rulesChecked: [], error, frames: 0, framesMissed: 0, ms: 0 } };
  }
  const left = () => opts.jobDeadline - Date.now() - stepMs;
  const { mainFrameId } = prepared;
  const putBack = async () => {
    if (!opts.narrowed) return;
    const { profile, site } = opts;
    if (site.slot) await worlds.evaluate(mainFrameId, setSlotWidth(site.slot.width), stepMs);
    else await bounded(client.send("Emulation.setDeviceMetricsOverride", { width: profile.width, height: profile.height, deviceScaleFactor: profile.deviceScaleFactor, mobile: profile.isMobile }), stepMs, undefined);
    await worlds.evaluate(mainFrameId, TWO_FRAMES, stepMs, true);
  };
  // axe into the top frame's world beside the width put back and the sensor's release: it loads no differently at
  // either width, and runs once all three are done. Not for a framed bundle, whose top is our slot page (checked only
  // when the creative wrote into it). With the consent sensor, only for a page of one frame: its Debugger may still be
  // on, and V8 caches no compile while it is — with more frames, the first one loaded after the release is what lets
  // the others take axe from the cache. Not during the measure phase: beside the layout probes on a loaded machine,
  // it held them past their step (truth row xo-iframe-300x600-paints-top measured its frame's stand-in box).
  const axeTop = async () => {
    if (opts.site.slot) return;
    const frames = await worlds.frames();
    if (frames.length === 1 || !prepared.consentSensor) await loadAxe(worlds, mainFrameId, stepMs, { fresh: true });
  };
  const steps = opts.steps;
  const since = (name: string) => { const clock = stepClock(steps); return <X>(v: X) => { clock(name); return v; }; };
  await Promise.all([
    putBack().then(since("width_back")), opts.before && bounded(opts.before, stepMs, undefined).then(since("sensor_off")), axeTop().then(since("axe_top")),
  ]);
  const step = stepClock(steps);
  const document = await runDocumentChecks(worlds, { ownTop: opts.site.hostPageIsWrapper || !!opts.site.slot, slotTop: !!opts.site.slot, stepMs, budgetMs: Math.max(0, Math.min(stepMs * 2, left())) });
  step("axe_checks");
  const probe = await probeFrames(worlds, Math.max(0, Math.min(stepMs, left())));
  step("a11y_probe");
  let pause;
  if (opts.longMotion && !opts.signal?.aborted) {
    pause = left() > PAUSE_OBSERVE_MS * 2 + 2_000
      ? await tryPauseControl(client, probe.controls[0], { stillMoving: opts.stillMoving, observeMs: PAUSE_OBSERVE_MS })
      : { control: probe.controls[0]?.name ?? "", ...(probe.controls[0] ? { outcome: "not_verified" as const } : {}) };
  }
  return { document, pause, canvases: probe.canvases, images: probe.images };
}
