import { readFile } from "node:fs/promises";
import { DECODE_THREADS, MAX_PIXELS, refusedDecoder, refusedFrameSize } from "./decode-limits.ts";
import { planAudioPass, readAudioPass, type AudioPassPlan } from "./audio-pass.ts";
import { runTool, ToolError, type ToolOptions, type ToolRun } from "./exec.ts";
import type { LoudnessFacts } from "./loudness.ts";
import { planVideoPass, readVideoPass, type VideoPassInput, type VideoPassPlan, type VideoPassResult } from "./video-pass.ts";

/*
 * Why the processes are what they are (decode only what a measurement needs):
 *
 *  1. one ffprobe (its description and every packet, demux only: ffprobe.ts probeWithPackets; until 2026-11-26 two
 *     ffprobes side by side, each paying ffmpeg 5.1's ~0.14 s of CPU to start) runs first: the passes depend on it —
 *     which stream is the video (not cover art), whether there is audio, the duration (poster time, strip times), and
 *     where the keyframes are (which frames make the film strip, which one the poster). For an MP4/MOV the video and
 *     flash passes are planned from the file's own index and started beside it, kept when ffprobe's facts plan the
 *     same commands (early-pictures.ts, 2026-11-27).
 *  2. The audio pass (`audio-pass.ts`), started beside 1 on the first audio stream (prober.ts keeps it when
 *     that is the stream chosen): every sample of the audio stream, nothing of the video. Loudness has no
 *     cheaper exact form; this is the floor any prober pays.
 *  3. The video pass (`video-pass.ts`), at the same time on the other core: keyframes only for letterboxing and the
 *     film strip, the first frames up to the first visible one (and the first 8 frames' caption data, which a third
 *     ffprobe used to decode again: media-accessibility.ts captionChain), and a seek to the poster keyframe.
 *  The old single pass decoded every video frame to feed all of these; it cost ~4x the audio pass on a 15 s 720p file.
 *  Two processes also mean two failure domains: a video that cannot be decoded no longer costs the loudness.
 *  On the one rendition per Linear creative the VAST analyzer flags (MediaInput.analyze_flashes), prober.ts runs a
 *  flash pass beside 2 and 3 (flash-pass.ts: every frame, the scanVideo flash consumer): flashes need every frame,
 *  which 3 does not decode, and a process of its own keeps 3's pictures from waiting for a whole-file decode.
 *  4. Only when no frame in the first 10 s is visible (all black): a tiny ffmpeg that scales the poster JPG (our own
 *     file, not the download) into the thumbnail.
 */

export interface AnalysisInput {
  input: string;
  outDir: string;
  video?: Omit<VideoPassInput, "input" | "outDir">;
  audio?: { index: number };
}

export interface AnalysisPlan {
  audio?: AudioPassPlan;
  video?: VideoPassPlan;
}

export function planAnalysis(p: AnalysisInput): AnalysisPlan {
  return {
    audio: p.audio ? planAudioPass({ input: p.input, outDir: p.outDir, audioIndex: p.audio.index }) : undefined,
    video: p.video ? planVideoPass({ input: p.input, outDir: p.outDir, ...p.video }) : undefined,
  };
}

export interface PassResult extends VideoPassResult {
  audioWave?: Buffer;
  loudness?: LoudnessFacts;
}

/**
 * How a pass ended early: its time-out, a decode error, an OS limit (CPU time, address space, output file size), a
 * frame over MAX_PIXELS or a decoder off the whitelist (the decoder refuses; ffmpeg says which in its log).
 */
export type FailureKind = "timeout" | "decode" | "cpu" | "memory" | "output" | "frame_size" | "codec";

/** The failure a ToolError stands for. */
export function failureOf(e: unknown): FailureKind {
  if (!(e instanceof ToolError)) return "decode";
  if (e.reason === "timeout") return "timeout";
  if (e.reason === "limit") return e.limit === "cpu" ? "cpu" : e.limit === "memory" ? "memory" : "output";
  if (refusedFrameSize(e.stderr)) return "frame_size";
  if (refusedDecoder(e.stderr)) return "codec";
  return "decode";
}

/** How the passes ended: each completed, or was cut short (what it had written completely by then is kept). */
export interface PassOutcome {
  result: PassResult;
  /** Set when a pass failed or was killed: the client-safe reason (analysis_error). */
  failure?: string;
  /** Which pass failed: its measurements over the whole stream (loudness, letterboxing) are then not measured. */
  audioFailed?: boolean;
  videoFailed?: boolean;
  /** Wall-clock time of each pass, ms (for the probe log). */
  ms: { audio?: number; video?: number };
}

type Runner = (tool: string, args: string[], opts: ToolOptions) => Promise<ToolRun>;

/**
 * Runs the audio and the video pass concurrently. A pass that fails or times out still yields every image it had
 * finished writing (checked for a complete JPEG/PNG/raster, never a half-written file): those frames were measured.
 * Only an abort rejects. `run` is replaceable for tests.
 */
export interface PassRun {
  stderr: string;
  failure?: FailureKind;
  ms: number;
}

/** One pass's ffmpeg: its log, or how it failed. Only an abort of `opts.signal` rejects. */
export async function startPass(args: string[], opts: ToolOptions, run: Runner = runTool): Promise<PassRun> {
  const started = performance.now();
  try {
    const { stderr } = await run("ffmpeg", args, opts);
    return { stderr, ms: performance.now() - started };
  } catch (e) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    const failure = failureOf(e);
    // Its log up to the failure: what a branch had finished seeing (the caption branch's frames) is still measured.
    return { stderr: e instanceof ToolError ? e.stderr : "", failure, ms: performance.now() - started };
  }
}

export async function runAnalysis(
  plan: AnalysisPlan, opts: ToolOptions, run: Runner = runTool,
  how: { deadlineCut?: boolean; audioStarted?: Promise<PassRun>; videoStarted?: Promise<PassRun> } = {},
): Promise<PassOutcome> {
  // A pass may have been started already (prober.ts: beside ffprobe, early-pictures.ts); it is then the plan's pass.
  const [a, v] = await Promise.all([
    plan.audio && (how.audioStarted ?? startPass(plan.audio.args, opts, run)),
    plan.video && (how.videoStarted ?? startPass(plan.video.args, opts, run)),
  ]);
  if (opts.signal?.aborted) throw opts.signal.reason;
  const [audio, video] = await Promise.all([
    plan.audio && a ? readAudioPass(plan.audio, a.stderr, !a.failure) : undefined,
    plan.video && v ? readVideoPass(plan.video, v.stderr, !v.failure) : undefined,
  ]);
  const failure = describeFailures(a?.failure, v?.failure, opts.timeoutMs, how.deadlineCut);
  return {
    result: { ...video, ...audio, cropFrames: video?.cropFrames ?? [] },
    ...(failure ? { failure } : {}),
    audioFailed: a?.failure !== undefined,
    videoFailed: v?.failure !== undefined,
    ms: { audio: a && Math.round(a.ms), video: v && Math.round(v.ms) },
  };
}

/** "media …" when every pass that ran failed the same way, else per pass ("video analysis timed out after 60 s"). */
export function describeFailures(
  audio: FailureKind | undefined, video: FailureKind | undefined, timeoutMs: number, deadlineCut = false,
): string | undefined {
  const what = (kind: FailureKind, subject: string): string => {
    switch (kind) {
      case "timeout":
        // The time-out was what the scan's deadline left, not the pass limit: say so.
        return deadlineCut ? `${subject} analysis stopped: the scan's deadline was reached`
          : `${subject} analysis timed out after ${Number((timeoutMs / 1000).toFixed(3))} s`;
      case "cpu": return `${subject} analysis stopped at its CPU time limit`;
      case "memory": return `${subject} analysis stopped at its memory limit`;
      case "output": return `${subject} analysis stopped at its output size limit`;
      case "frame_size": return `${subject} frames are larger than ${MAX_PIXELS} pixels (8192x4320); not decoded`;
      case "codec": return `${subject} codec is not one the prober decodes`;
      case "decode": return `${subject} could not be decoded`;
    }
  };
  if (audio && video && audio === video) return what(audio, "media");
  const parts = [audio && what(audio, "audio"), video && what(video, "video")].filter(Boolean);
  return parts.length ? parts.join("; ") : undefined;
}

/** Thumbnail from an existing JPG (the poster), for videos with no visible frame at the start. */
export async function thumbnailFromImage(jpg: string, out: string, opts: ToolOptions): Promise<Buffer | undefined> {
  await runTool(
    "ffmpeg",
    [
      "-hide_banner", "-nostdin", "-v", "error", "-protocol_whitelist", "file", "-codec_whitelist", "mjpeg", "-threads", String(DECODE_THREADS),
      "-f", "image2", "-i", jpg,
      "-vf", "scale=w='min(320,iw)':h=-2", "-frames:v", "1", "-q:v", "4", "-f", "image2", "-update", "1", out, "-y",
    ],
    opts,
  );
  return readFile(out).catch(() => undefined);
}
