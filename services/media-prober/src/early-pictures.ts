import { rm } from "node:fs/promises";
import { startPass, type PassRun } from "./analysis-pass.ts";
import { MAX_PIXELS } from "./decode-limits.ts";
import type { ToolOptions } from "./exec.ts";
import type { ProbeStream } from "./ffprobe.ts";
import { followFlashFrames, type FlashFollower } from "./file-flash-follow.ts";
import { flashPlanOf } from "./flash-fields.ts";
import { planFlashPass, type FlashPassPlan } from "./flash-pass.ts";
import { canCarryPictureCaptions } from "./media-accessibility.ts";
import { isMp4Head, readMp4VideoIndex, streamOfIndex, type Mp4VideoIndex } from "./mp4-index.ts";
import { planVideoPass, type VideoPassPlan } from "./video-pass.ts";

/*
 * The VAST probe's picture passes started beside ffprobe (issue 22 §3): the video pass and, on the rendition the VAST
 * analyzer flags, the flash pass, planned from an MP4/MOV's own index (mp4-index.ts, the reader of scanVideo's early
 * pass) instead of after ffprobe's description and packet scan. ffprobe's facts then plan both passes again
 * (planPictures, the same function), and an early pass is kept only when that plan is the same ffmpeg command, byte
 * for byte, reading its outputs the same way; otherwise it is stopped, what it wrote is removed, and the pass runs as
 * planned from ffprobe. So the index is a prediction, never a measurement: every field comes from the same command as
 * before, only started sooner.
 *
 * Why: the flash pass (every frame decoded into the WCAG grid) is the VAST scan's long pole, and it waited for ffprobe
 * (235 ms of phase in the 2026-11-27 11:57Z bench, ffprobe 70 ms of CPU of it) although it needs only the stream's
 * index, display size and frame rate; the video pass waited for the keyframe times, which the index has too. The
 * bench's floor runs ffprobe first and its decodes after it; the probe no longer does. Figures: the media-prober
 * README ("Performance: what is left", 2026-11-27 14:00Z).
 */

/** What the picture passes are planned from: the video stream as ffprobe describes it, its duration and keyframes. */
export interface PictureFacts {
  video: ProbeStream;
  /** s (video-info.ts streamDuration). */
  duration: number;
  /** Keyframe times on ffmpeg's timeline less the format's start time, s. */
  keyframes: number[];
}

export interface PicturePlans {
  video: VideoPassPlan;
  /** Only on the rendition flagged for flashes, and only for a picture with a size. */
  flash?: FlashPassPlan;
}

/** The VAST video pass and, when asked, the flash pass for these facts (from ffprobe, or predicted from the index). */
export function planPictures(input: string, outDir: string, f: PictureFacts, flashes: boolean): PicturePlans {
  const video = planVideoPass({
    input, outDir, videoIndex: f.video.index, duration: f.duration, keyframes: f.keyframes,
    // Captions in the pictures: a branch of the video pass on its first frames (media-accessibility.ts captionChain).
    captions: canCarryPictureCaptions(f.video),
  });
  const flashPlan = flashes ? flashPlanOf(f.video, outDir) : undefined;
  return { video, flash: flashPlan ? planFlashPass(input, f.video.index, flashPlan) : undefined };
}

/** The facts an MP4's index predicts, as ffprobe would describe the stream. */
export function factsOfIndex(x: Mp4VideoIndex): PictureFacts {
  return { video: streamOfIndex(x), duration: x.duration, keyframes: x.keyframes };
}

/** A pass started early: its plan, its run (an abort resolves to `err`), its own stop. */
export interface EarlyRun<P> {
  plan: P;
  run: Promise<PassRun | { err: unknown }>;
  stop: AbortController;
  /** Every file it may write. */
  outputs: string[];
  /** The flash pass's analysis, following the grid as it is written (file-flash-follow.ts). */
  follower?: FlashFollower;
}

export interface EarlyPictures {
  video?: EarlyRun<VideoPassPlan>;
  flash?: EarlyRun<FlashPassPlan>;
}

/**
 * Starts the picture passes from an MP4/MOV's index (a file whose first box is `ftyp`), or returns undefined (not
 * MP4, an index the reader does not fully understand, a picture over MAX_PIXELS: the passes then wait for ffprobe).
 */
export async function startEarlyPictures(
  file: string, outDir: string, head: Uint8Array, flashes: boolean, opts: ToolOptions,
): Promise<EarlyPictures | undefined> {
  if (!isMp4Head(head)) return undefined;
  const index = await readMp4VideoIndex(file).catch(() => undefined);
  if (!index || !(index.width > 0 && index.height > 0) || index.width * index.height > MAX_PIXELS) return undefined;
  if (opts.signal?.aborted) return undefined;
  const plans = planPictures(file, outDir, factsOfIndex(index), flashes);
  const start = <P extends { args: string[] }>(plan: P, outputs: string[]): EarlyRun<P> => {
    const stop = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
    return { plan, stop, outputs, run: startPass(plan.args, { ...opts, signal }).catch((err: unknown) => ({ err })) };
  };
  return {
    video: start(plans.video, Object.values(plans.video.outputs)),
    flash: plans.flash ? { ...start(plans.flash, [plans.flash.flash.path]), follower: followFlashFrames(plans.flash.flash) } : undefined,
  };
}

/** The same ffmpeg command, read the same way: an early pass planned so is the probe's pass. */
export function sameVideoPass(a: VideoPassPlan, b: VideoPassPlan): boolean {
  const key = (p: VideoPassPlan) => JSON.stringify([p.args, p.outputs, p.stripTimesMs, p.captions ?? false]);
  return key(a) === key(b);
}

export function sameFlashPass(a: FlashPassPlan, b: FlashPassPlan): boolean {
  const { chain: _a, ...fa } = a.flash;
  const { chain: _b, ...fb } = b.flash;
  return JSON.stringify([a.args, fa]) === JSON.stringify([b.args, fb]);
}

/** Stops an early pass that is not the probe's and removes what it wrote, so that nothing of it is read as measured. */
export async function discardEarly(e: EarlyRun<unknown> | undefined): Promise<void> {
  if (!e) return;
  e.stop.abort(new Error("not the probe's pass"));
  await e.run;
  await e.follower?.finish(false, 0);
  await Promise.all(e.outputs.map((f) => rm(f, { force: true })));
}

/** A kept early run as the pass's run (an abort rejects, as startPass does). */
export async function keptRun(e: EarlyRun<unknown>): Promise<PassRun> {
  const r = await e.run;
  if ("err" in r) throw r.err;
  return r;
}
