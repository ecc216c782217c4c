import type { DeviceProfile, ScanTimeouts } from "../config.ts";
import { measureCreative, measureResized, type MeasureArtifact, type ResizedLayout } from "../gatherers/measure.ts";
import { readStorage, type StorageArtifact } from "../gatherers/storage.ts";
import type { PreparedPage } from "../prepared-page.ts";
import type { SyntheticSite } from "../synthetic-origin.ts";
import { bounded } from "../util.ts";
import { stepClock, type StepTimes } from "../gatherers/step-times.ts";

export interface MeasurePhaseArtifact {
  /** The page answered, if need be after its script was terminated: what follows was measured. */
  responsive: boolean;
  /** The creative's script hung the page and was terminated so it could be measured (the scan timed out). */
  terminated: boolean;
  /** Layout across frames, screenshot and responsiveness (empty when the page did not answer). */
  measured: MeasureArtifact;
  storage: StorageArtifact;
  /** Wall ms per step (scan log): the answer check, the CPU sample, then measureCreative's steps and storage's. */
  steps: StepTimes;
}

/**
 * The measuring phase, after the render: each step bounded; a page whose main thread is stuck gets its script
 * terminated once. CPU is sampled first (what measuring costs the renderer is not the creative's), then layout and
 * screenshot alongside storage. Responsiveness (responsivePhase) comes next, while axe-core loads, when the width is
 * put back for a click after it; otherwise after the accessibility checks, which read the page as shown.
 */
export async function measurePhase(prepared: PreparedPage, opts: {
  site: SyntheticSite;
  profile: DeviceProfile;
  /**
   * Started once the screenshot is in (not waited for): renderer work that changes nothing the page shows (axe-core's
   * load, phases/accessibility.ts loadAxeTop). Beside the layout and storage reads it only lengthened them by its
   * compile (A/B at load 8.5: layout 34 → 275 ms); beside the capture it held the capture's frame past its step.
   */
  beside?: () => unknown;
  timeouts: Pick<ScanTimeouts, "stepMs">;
  /** Local ms by which the job's report must be on its way. */
  jobDeadline: number;
}): Promise<MeasurePhaseArtifact> {
  const { client, events, perf, worlds, mainFrameId } = prepared;
  const { stepMs } = opts.timeouts;
  const measureDeadline = Math.min(Date.now() + stepMs * 4, opts.jobDeadline);
  const budget = () => Math.max(200, Math.min(stepMs, measureDeadline - Date.now()));
  const alive = () => worlds.evaluate(mainFrameId, "1", 2_000);
  const steps: StepTimes = {};
  const step = stepClock(steps);
  let responsive = !events.artifact.crashed && (await alive()) !== undefined;
  let terminated = false;
  if (!responsive && !events.artifact.crashed) {
    await bounded(client.send("Runtime.terminateExecution"), 2_000, undefined);
    responsive = (await alive()) !== undefined;
    terminated = responsive;
  }
  let measured: MeasureArtifact = {};
  let storage: StorageArtifact = { cookies: [], localStorage: [] };
  if (responsive) {
    // CPU first: what measuring costs the renderer is not the creative's.
    step("answer");
    await perf.sample();
    step("cpu_sample");
    // Storage does not depend on the layout steps (which resize the viewport): read both at once.
    const storageStep = stepClock(steps);
    [measured, storage] = await Promise.all([
      measureCreative(client, worlds, mainFrameId, opts.profile, budget, steps, opts.beside),
      readStorage(client, worlds, budget()).then((s) => { storageStep("storage"); return s; }),
    ]);
  }
  return { responsive, terminated, measured, storage, steps };
}

/**
 * Responsiveness: the creative laid out at a narrower viewport (or slot), then put back when something after clicks
 * the page as shown (`putBack`: the click-through, the pause control; the accessibility checks then follow too).
 */
export async function responsivePhase(prepared: PreparedPage, opts: {
  site: SyntheticSite;
  profile: DeviceProfile;
  /** The measure phase's artifact: the page answered, and its creative's box. */
  measure: MeasurePhaseArtifact;
  putBack: boolean;
  timeouts: Pick<ScanTimeouts, "stepMs">;
  jobDeadline: number;
  steps?: StepTimes;
}): Promise<ResizedLayout | undefined> {
  if (!opts.measure.responsive) return undefined;
  const { client, worlds, mainFrameId } = prepared;
  const { stepMs } = opts.timeouts;
  const deadline = Math.min(Date.now() + stepMs * 3, opts.jobDeadline);
  const budget = () => Math.max(200, Math.min(stepMs, deadline - Date.now()));
  return measureResized(client, worlds, mainFrameId, opts.profile, budget, opts.measure.measured.layout?.box, opts.site.slot, opts.putBack, opts.steps);
}
