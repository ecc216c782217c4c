import { open, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import {
  BlackBarsSchema, FileInfoSchema, ImageSchema, LoudnessSchema, MediaContentSchema, type AudioInfo, type FileInfo, type Image, type MediaAccessibility, type VideoInfo,
} from "@cva/contracts";
import type { ArtifactSink } from "@cva/platform";
import { failureOf, describeFailures, thumbnailFromImage, type FailureKind } from "./analysis-pass.ts";
import { dominantColour } from "./colour.ts";
import { containerFacts } from "./container-info.ts";
import { leadingMs, longestFreezeMs, trailingMs } from "./content.ts";
import { MAX_PIXELS, refusedDecoder, refusedFrameSize } from "./decode-limits.ts";
import { runTool, ToolError, type ResourceLimits, type ToolOptions } from "./exec.ts";
import { probeDescribed, type PacketStats, type ProbeResult, type ProbeStream } from "./ffprobe.ts";
import { planFileAudioPass, readFileAudioPass, type FileAudioPassResult } from "./file-audio-pass.ts";
import { FILE_INPUT_OPTIONS, MAX_SIDE, MAX_STREAMS, refusedStreamCount } from "./file-limits.ts";
import { FILE_FIELD, type FileField } from "./file-not-measured.ts";
import { flashPlanOf, withFlashes } from "./flash-fields.ts";
import { followFlashFrames, type FlashFollower } from "./file-flash-follow.ts";
import { FREEZE_MIN_S, planFileVideoPass, readFileVideoPass, type FileVideoPassInput, type FileVideoPassPlan, type FileVideoPassResult } from "./file-video-pass.ts";
import { isMp4Head, readMp4VideoIndex, streamOfIndex, type Mp4VideoIndex } from "./mp4-index.ts";
import { judgeScanType } from "./interlace.ts";
import { canCarryPictureCaptions, captionsUnmeasured, FLASH_FIELD_KEYS, mediaAccessibility } from "./media-accessibility.ts";
import { judgeLetterboxing } from "./letterbox.ts";
import { moovAtomPosition } from "./mp4-boxes.ts";
import type { LoggerLike } from "./prober.ts";
import { SNIFF_BYTES, sniffMedia } from "./sniff.ts";
import {
  audioBitDepth, chromaSubsampling, colourTag, frameRateFraction, frameRateMode, headerScanType, isHdrTransfer, keyframeIntervalMs,
} from "./stream-facts.ts";
import { audioStreamInfo, containerInfo, videoStreamInfo } from "./stream-info.ts";
import { demuxerTruncation, packetsEndEarly, wavDataShort } from "./truncation.ts";
import { pickAudioStream, pickVideoStream, streamDuration } from "./video-info.ts";

/*
 * The measurement core of the raw file scans (scanVideo, scanAudio): a local file in, every field of issue 19 §2/§4
 * out — or a refusal naming why the file is not one to measure (the job answers it as a payload_error).
 *
 * Order, cheapest first, so that a hostile file costs little: size 0 → sniff of the first 4 KB (documents, images,
 * archives, playlists) → one ffprobe with the file restrictions (file-limits.ts: whitelists, at most 64 streams, frames
 * of at most 35 M pixels), its description and packet scan (demux only) → stream count, sides of at most 8192 px, the kind's
 * stream present, truncation → only then the decode passes, side by side: the video pass (file-video-pass.ts, every
 * frame once) and the audio pass (file-audio-pass.ts, every sample once). Each process runs under the OS limits of
 * exec.ts and its own time-out; the job's deadline cuts them shorter and says so.
 *
 * The early pass: the video pass is planned from ffprobe's facts (stream index, size, codec, frame rate, duration,
 * keyframe times), so it used to wait for ffprobe (~0.15 s, most of it one process start, with a core idle). For an
 * MP4/MOV whose own index (moov) says the same things (mp4-index.ts), the pass is planned from that index and started
 * beside ffprobe; when ffprobe's answer is in, the pass is planned again from it, and the early pass is kept only when
 * both plans are the same ffmpeg command, argument for argument (so the same frames, filters and outputs: every field
 * reads what it read when the pass started after ffprobe). Otherwise (the index mispredicted) the early pass is stopped,
 * its outputs removed, and the pass runs as planned from ffprobe; a file ffprobe refuses stops it too. A hostile file
 * thus costs at most ffprobe's time of one pass under the same decoder limits before its refusal.
 */

export type FileKind = "video" | "audio";

export interface FileProbeLimits {
  /** ffprobe and the packet scan. */
  ffprobeTimeoutMs: number;
  /** Each decode pass (a 500 MB master takes minutes to decode; the job's deadline usually ends it sooner). */
  analysisTimeoutMs: number;
  processLimits?: Partial<ResourceLimits>;
  /** Start the video pass beside ffprobe when an MP4's index predicts its plan (the early pass; default true). */
  earlyPass?: boolean;
}

export const DEFAULT_FILE_PROBE_LIMITS: FileProbeLimits = { ffprobeTimeoutMs: 60_000, analysisTimeoutMs: 300_000, earlyPass: true };

export interface FileProbeOptions {
  /** The job's private directory: pass outputs are written there. */
  dir: string;
  signal?: AbortSignal;
  /** Unix ms by which the measurement must be done (the job's deadline less the time to reply). */
  deadlineMs?: number;
  logger?: LoggerLike;
}

/** What the file is, as measured. Images are stored in the artifact sink. */
export interface FileFacts {
  fileInfo: FileInfo;
  /** The programme's duration, ms. */
  durationMs: number;
  /** What the bytes are (container facts), e.g. video/mp4. */
  mimeType: string;
  /** Captions, audio description (and, for video, flashes) — video files only. */
  accessibility?: MediaAccessibility;
  poster?: Image;
  firstFrame?: Image;
  thumbnail?: Image;
  filmStrip?: Image;
  /** Each film strip tile's frame time, ms from the video's start; empty when unknown or no strip. */
  filmStripTimesMs: number[];
  audioWave?: Image;
  notMeasured: FileField[];
  analysisError: string;
  /**
   * Where the time went, ms, for the job's log line: ffprobe (description and packet scan, one process), the checks
   * after it, each pass (side by side), the flash analysis of the pass's grid frames (after it), storing the images.
   */
  phaseMs: { probe?: number; packets?: number; video_pass?: number; audio_pass?: number; flashes?: number; store?: number };
  /** Whether the video pass started beside ffprobe (from the MP4 index) and was kept, or was re-planned; absent: not tried. */
  earlyPass?: "kept" | "replanned";
}

export type FileProbeOutcome = { facts: FileFacts } | { refused: string };

export interface FileProber {
  /** Never throws for what the file is (that is a refusal or a not-measured field); only an abort rejects. */
  probeFile(path: string, kind: FileKind, opts: FileProbeOptions): Promise<FileProbeOutcome>;
}

const DEADLINE = "the scan's deadline was reached";

export function createFileProber(deps: { artifacts: ArtifactSink; limits?: Partial<FileProbeLimits>; logger?: LoggerLike }): FileProber {
  const limits: FileProbeLimits = { ...DEFAULT_FILE_PROBE_LIMITS, ...deps.limits };
  const timeLeft = (limitMs: number, deadlineMs: number | undefined) => {
    if (deadlineMs === undefined) return { ms: limitMs, cut: false };
    const left = Math.floor(deadlineMs - Date.now());
    return left < limitMs ? { ms: Math.max(0, left), cut: true } : { ms: limitMs, cut: false };
  };

  async function probeFile(path: string, kind: FileKind, opts: FileProbeOptions): Promise<FileProbeOutcome> {
    const { signal } = opts;
    const log = opts.logger ?? deps.logger;
    const noun = kind === "video" ? "a video file" : "an audio file";
    const refuse = (cause: string): FileProbeOutcome => ({ refused: cause });

    const phaseMs: FileFacts["phaseMs"] = {};
    let lapAt = performance.now();
    const lap = (phase: "probe" | "packets" | "store") => {
      const now = performance.now();
      phaseMs[phase] = Math.round(now - lapAt);
      lapAt = now;
    };
    const { head, size } = await readHead(path);
    if (size === 0) return refuse("empty file");
    const sniff = sniffMedia(head, size);
    if (!sniff.media) return refuse(`not ${noun}: ${sniff.reason}`);

    const probeTime = timeLeft(limits.ffprobeTimeoutMs, opts.deadlineMs);
    if (probeTime.ms <= 0) return refuse(`the file was not analysed: ${DEADLINE}`);
    const toolOpts: ToolOptions & { inputOptions: string[] } = {
      timeoutMs: probeTime.ms, signal, limits: limits.processLimits, inputOptions: FILE_INPUT_OPTIONS,
    };
    type PassOutcome = { stderr: string; failure?: FailureKind; ms?: number };
    const runPass = async (args: string[], time: { ms: number }, passOpts: ToolOptions): Promise<PassOutcome> => {
      if (time.ms <= 0) return { stderr: "", failure: "timeout" };
      const started = performance.now();
      try {
        return { stderr: (await runTool("ffmpeg", args, passOpts)).stderr, ms: Math.round(performance.now() - started) };
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        // An early pass stopped on purpose (re-planned, or the file refused): nothing to report.
        if (!passOpts.signal?.aborted) log?.warn({ err: describe(e) }, "file pass failed");
        // Its log up to the failure: what a branch had finished seeing (the caption branch's frames) is still measured.
        return { stderr: e instanceof ToolError ? e.stderr : "", failure: failureOf(e), ms: Math.round(performance.now() - started) };
      }
    };
    // Each pass's time-out is what is left of the job's deadline when it starts (the same end either way).
    const passBudget = (passSignal: AbortSignal | undefined = signal) => {
      const time = timeLeft(limits.analysisTimeoutMs, opts.deadlineMs);
      const passOpts: ToolOptions = { timeoutMs: Math.max(1, time.ms), signal: passSignal, limits: limits.processLimits };
      return { time, opts: passOpts };
    };
    const startPass = (args: string[], passSignal: AbortSignal | undefined = signal): StartedPass<PassOutcome> => {
      const { time, opts: passOpts } = passBudget(passSignal);
      return { time, opts: passOpts, done: runPass(args, time, passOpts) };
    };

    // The early pass (comment at the top): planned from the MP4's own index, started before ffprobe.
    let early: EarlyPass<PassOutcome> | undefined;
    if (kind === "video" && limits.earlyPass !== false && isMp4Head(head)) {
      const index = await readMp4VideoIndex(path).catch(() => undefined);
      if (index && index.width > 0 && index.height > 0 && index.width <= MAX_SIDE && index.height <= MAX_SIDE) {
        const plan = planFileVideoPass(passInputOfIndex(path, opts.dir, index));
        const stop = new AbortController();
        const onAbort = () => stop.abort(signal?.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        if (signal?.aborted) stop.abort(signal.reason);
        early = { plan, stop, onAbort, follower: plan.flash ? followFlashFrames(plan.flash) : undefined, run: startPass(plan.args, stop.signal), settled: false };
        // Awaited when kept or discarded; meanwhile a rejection (the job aborted) must not count as unhandled.
        early.run.done.catch(() => undefined);
      }
    }
    try {
      // The description and the packet scan from one ffprobe (ffprobe.ts probeWithPackets: one process less). A file the
      // demuxer cannot read whole (a cut file) says so in its log (`demuxErrors`), refused below as truncated.
      let meta: ProbeResult;
      let packets: PacketStats | undefined;
      try {
        let packetsError: unknown;
        ({ meta, packets, packetsError } = await probeDescribed(path, toolOpts));
        if (packetsError) log?.warn({ err: describe(packetsError) }, "packet statistics failed; the description alone was read");
      } catch (e) {
        if (signal?.aborted) throw e;
        log?.warn({ err: describe(e) }, "ffprobe refused the file");
        return refuse(ffprobeRefusal(e, noun, probeTime));
      }
      lap("probe");
      const video = pickVideoStream(meta.streams);
      const audio = pickAudioStream(meta.streams);
      const streamRefusal = checkStreams(meta, kind, video, audio, noun);
      if (streamRefusal) return refuse(streamRefusal);
      const container = containerFacts(meta.format, head, video !== undefined);
      const moov = container.formatName.startsWith("mov") ? await moovAtomPosition(path) : "";
      if (signal?.aborted) throw signal.reason;
      const main = kind === "video" ? video! : audio!;
      const truncated = await truncation(path, meta, main, packets);
      if (truncated) return refuse(`truncated file: ${truncated}`);
      if (packets && !(packets.byStream.get(main.index)?.length)) return refuse(`empty file: its ${kind} stream has no ${kind === "video" ? "frames" : "samples"}`);
      lap("packets");

      // ---- the passes
      const startTime = Number(meta.format.start_time) || 0;
      const videoDuration = video ? streamDuration(video, meta.format) : 0;
      const planned = kind === "video" && video ? planFileVideoPass(passInputOfProbe(path, opts.dir, video, meta, packets, startTime)) : undefined;
      // The early pass is kept only when ffprobe's facts plan the very same pass.
      const keep = early !== undefined && planned !== undefined && samePass(early.plan, planned);
      let earlyPass: FileFacts["earlyPass"];
      if (early) {
        earlyPass = keep ? "kept" : "replanned";
        if (keep) early.settled = true;
        else await discardEarly(early);
      }
      const videoPlan = keep ? early!.plan : planned;
      const audioPlan = audio ? planFileAudioPass({ input: path, outDir: opts.dir, audioIndex: audio.index }) : undefined;
      // The flash analysis follows the grid frames as the video pass writes them (file-flash-follow.ts).
      const flashFollower = keep ? early!.follower : videoPlan?.flash ? followFlashFrames(videoPlan.flash) : undefined;
      const videoRun = keep ? early!.run : videoPlan ? startPass(videoPlan.args) : undefined;
      const audioRun = audioPlan ? startPass(audioPlan.args) : undefined;
      const { time: passTime, opts: passOpts } = (videoRun ?? audioRun) ?? passBudget();
      let v: PassOutcome | undefined, a: PassOutcome | undefined;
      try {
        [v, a] = await Promise.all([videoRun?.done, audioRun?.done]);
      } catch (e) {
        await flashFollower?.finish(false, 0);
        throw e;
      }
      phaseMs.video_pass = v?.ms;
      phaseMs.audio_pass = a?.ms;
      const vp: FileVideoPassResult | undefined = videoPlan && v ? await readFileVideoPass(videoPlan, v.stderr, !v.failure) : undefined;
      // Flashes only from a pass that finished: a verdict over part of the video is not one. What is left to analyse
      // after the pass is its last frames (phase_ms.flashes).
      const flashStarted = performance.now();
      const flashes = await flashFollower?.finish(v !== undefined && !v.failure, videoDuration);
      if (flashes) phaseMs.flashes = Math.round(performance.now() - flashStarted);
      const ap: FileAudioPassResult | undefined = audioPlan && a ? await readFileAudioPass(audioPlan, a.stderr, !a.failure) : undefined;
      // Captions in the pictures: the video pass's caption branch (media-accessibility.ts captionChain); a codec that
      // cannot carry them has none to look for.
      const cc = kind === "video" && canCarryPictureCaptions(video) ? vp?.pictureCaptions : false;
      const analysisError = describeFailures(a?.failure, v?.failure, passOpts.timeoutMs, passTime.cut) ?? "";
      const notMeasured = new Set<FileField>();

      // ---- container, video, audio, content
      const containerMsg = containerInfo(meta.format, container, moov, size, videoDuration);
      const videoInfo = kind === "video" && video ? describeVideo(video, meta, packets, vp, v?.failure !== undefined, startTime, notMeasured) : undefined;
      const audioInfo = audio ? describeAudio(audio, meta, packets, ap, notMeasured) : undefined;
      const content = create(MediaContentSchema, {});
      if (kind === "video") {
        const finished = vp && !v?.failure;
        if (finished && vp.endTime !== undefined) {
          const first = vp.firstFrameTime ?? 0;
          // Half a millisecond: the times are the frames' own; a run that starts at the first frame starts exactly there.
          content.leadingBlackMs = BigInt(leadingMs(vp.blacks, first, 0.0005));
          content.trailingBlackMs = BigInt(trailingMs(vp.blacks, vp.endTime, 0.0005));
          content.frozenFramesMs = BigInt(longestFreezeMs(vp.freezes, vp.blacks, FREEZE_MIN_S));
        } else {
          notMeasured.add(FILE_FIELD.leadingBlack).add(FILE_FIELD.trailingBlack).add(FILE_FIELD.frozenFrames);
        }
      }
      if (ap && !a?.failure && ap.samples !== undefined && audio) {
        const rate = Number(audio.sample_rate) || 0;
        const audioStart = firstPacketTime(packets, audio.index, startTime);
        // silencedetect ends a silence that lasts to the end where the decoded samples end; 5 ms absorbs the rounding of
        // its printed times.
        const audioEnd = rate > 0 ? audioStart + ap.samples / rate : Infinity;
        content.leadingSilenceMs = BigInt(leadingMs(ap.silences, audioStart, 0.005));
        content.trailingSilenceMs = BigInt(trailingMs(ap.silences, audioEnd, 0.005));
      } else {
        // No audio stream (a silent video), or the pass did not finish: there is no silence measurement to give.
        notMeasured.add(FILE_FIELD.leadingSilence).add(FILE_FIELD.trailingSilence);
      }

      // ---- accessibility (video files)
      let accessibility: MediaAccessibility | undefined;
      if (kind === "video") {
        accessibility = mediaAccessibility(meta.streams, video, cc);
        if (captionsUnmeasured(accessibility, video, cc)) notMeasured.add(FILE_FIELD.captions);
        if (flashes) withFlashes(accessibility, flashes, videoPlan!.flash!);
        else {
          for (const k of FLASH_FIELD_KEYS) notMeasured.add(FILE_FIELD[k]);
          accessibility.flashesNotJudgedReason = v?.failure ? `the video pass did not finish${analysisError ? ` (${analysisError})` : ""}` : "no frame could be analysed";
        }
      }

      // ---- images
      lapAt = performance.now();
      const images = await storeImages(kind, vp, ap, opts, passOpts);
      lap("store");
      if (kind === "video" && !images.poster) notMeasured.add(FILE_FIELD.poster);
      if (kind === "video" && !images.filmStrip) notMeasured.add(FILE_FIELD.filmStrip);
      if (kind === "video" && !images.firstFrame) notMeasured.add(FILE_FIELD.screenshot);
      if (audio && !images.audioWave) notMeasured.add(FILE_FIELD.audioWave);

      const programme = Number(meta.format.duration) > 0 ? Number(meta.format.duration) : kind === "video" ? videoDuration : audio ? streamDuration(audio, meta.format) : 0;
      return {
        facts: {
          fileInfo: create(FileInfoSchema, { container: containerMsg, video: videoInfo, audio: audioInfo, content }),
          durationMs: Math.round(programme * 1000),
          mimeType: container.mimeType,
          accessibility,
          ...images,
          notMeasured: [...notMeasured],
          analysisError,
          phaseMs,
          earlyPass,
        },
      };
    } finally {
      if (early) {
        signal?.removeEventListener("abort", early.onAbort);
        await discardEarly(early);
      }
    }
  }

  async function storeImages(kind: FileKind, vp: FileVideoPassResult | undefined, ap: FileAudioPassResult | undefined, opts: FileProbeOptions, passOpts: ToolOptions) {
    const put = async (data: Buffer | undefined, mimeType: string, color = ""): Promise<Image | undefined> => {
      if (!data) return undefined;
      const id = await deps.artifacts.put(data, mimeType);
      return create(ImageSchema, { id, bytes: BigInt(data.length), mimeType, color });
    };
    let { firstFrame, thumbnail, poster } = vp ?? {};
    const posterColour = vp?.posterRgb ? dominantColour(vp.posterRgb) : "";
    let firstColour = vp?.firstFrameRgb ? dominantColour(vp.firstFrameRgb) : "";
    let posterC = posterColour;
    if (kind === "video" && !firstFrame && poster) {
      // No visible frame in the first seconds: the poster stands in for the screenshot (as for VAST media).
      firstFrame = poster;
      firstColour = posterColour;
      const posterPath = join(opts.dir, "fallback-poster.jpg");
      await writeFile(posterPath, poster);
      thumbnail = await thumbnailFromImage(posterPath, join(opts.dir, "fallback-thumb.jpg"), passOpts).catch((e) => {
        if (opts.signal?.aborted) throw e;
        return undefined;
      });
    }
    if (kind === "video" && !poster && firstFrame) {
      poster = firstFrame;
      posterC = firstColour;
    }
    const [posterImg, firstImg, thumbImg, stripImg, waveImg] = await Promise.all([
      put(poster, "image/jpeg", posterC),
      put(firstFrame, "image/jpeg", firstColour),
      put(thumbnail, "image/jpeg", firstColour),
      put(vp?.filmStrip, "image/jpeg"),
      put(ap?.audioWave, "image/png"),
    ]);
    return { poster: posterImg, firstFrame: firstImg, thumbnail: thumbImg, filmStrip: stripImg, filmStripTimesMs: stripImg ? vp?.filmStripTimesMs ?? [] : [], audioWave: waveImg };
  }

  return { probeFile };
}

interface StartedPass<T> {
  time: { ms: number; cut: boolean };
  opts: ToolOptions;
  done: Promise<T>;
}

/** A video pass started from the MP4 index before ffprobe's answer (file-prober's comment at the top). */
interface EarlyPass<T> {
  plan: FileVideoPassPlan;
  /** Stops this pass alone (and follows the job's signal). */
  stop: AbortController;
  onAbort: () => void;
  follower?: FlashFollower;
  run: StartedPass<T>;
  /** Kept as the scan's video pass (ffprobe's facts planned the same one), or discarded. */
  settled: boolean;
}

/** Stops an early pass that is not the scan's and removes what it wrote, so that nothing of it can be read as measured. */
async function discardEarly(e: EarlyPass<unknown>): Promise<void> {
  if (e.settled) return;
  e.settled = true;
  e.stop.abort();
  await e.run.done.catch(() => undefined);
  await e.follower?.finish(false, 0);
  const written = [...Object.values(e.plan.outputs), ...(e.plan.flash ? [e.plan.flash.path] : [])];
  await Promise.all(written.map((f) => rm(f, { force: true })));
}

/** The same ffmpeg command (and what is read from its outputs): an early pass planned so is the scan's pass. */
function samePass(a: FileVideoPassPlan, b: FileVideoPassPlan): boolean {
  const key = (p: FileVideoPassPlan) => JSON.stringify([p.args, p.stripTimesMs, p.captions ?? false, p.flash ?? null]);
  return key(a) === key(b);
}

/** What the video pass is planned from: ffprobe's description and packet scan. */
function passInputOfProbe(path: string, dir: string, video: ProbeStream, meta: ProbeResult, packets: PacketStats | undefined, startTime: number): FileVideoPassInput {
  return {
    input: path, outDir: dir, videoIndex: video.index, duration: streamDuration(video, meta.format), pixels: (video.width ?? 0) * (video.height ?? 0),
    keyframes: (packets?.keyframes.get(video.index) ?? []).map((t) => t - startTime),
    flash: flashPlanOf(video, dir), captions: canCarryPictureCaptions(video),
  };
}

/** The same, predicted from an MP4's own index (mp4-index.ts), as the stream ffprobe would describe. */
function passInputOfIndex(path: string, dir: string, x: Mp4VideoIndex): FileVideoPassInput {
  const stream = streamOfIndex(x);
  return {
    input: path, outDir: dir, videoIndex: x.index, duration: x.duration, pixels: x.width * x.height, keyframes: x.keyframes,
    flash: flashPlanOf(stream, dir), captions: canCarryPictureCaptions(stream),
  };
}

/** Refusals ffprobe's description allows before anything is decoded. */
function checkStreams(meta: ProbeResult, kind: FileKind, video: ProbeStream | undefined, audio: ProbeStream | undefined, noun: string): string | undefined {
  if (meta.streams.length > MAX_STREAMS) return `the file has ${meta.streams.length} streams; at most ${MAX_STREAMS} are accepted`;
  if (kind === "video" && !video) return audio ? `not ${noun}: it has audio only (scan it as audio)` : `not ${noun}: no video stream`;
  // Cover art is an attached picture, not a video stream (pickVideoStream skips it).
  if (kind === "audio" && video) return `not ${noun}: it has a video stream (scan it as video)`;
  if (kind === "audio" && !audio) return `not ${noun}: no audio stream`;
  for (const s of meta.streams) {
    if (s.codec_type !== "video") continue;
    const w = s.width ?? 0;
    const h = s.height ?? 0;
    if (w > MAX_SIDE || h > MAX_SIDE) return `video dimensions ${w}x${h} are over the limit of ${MAX_SIDE} pixels per side`;
  }
  if (kind === "video" && (!(video!.width! > 0) || !(video!.height! > 0))) {
    // The decoder refused the size its first frame claims (ffprobe still describes the stream, without a size).
    const claimed = refusedFrameSize(meta.log ?? "");
    return claimed ? `video frame size ${claimed} is over the limit of ${MAX_PIXELS} pixels (8192x4320)` : "damaged file: its video stream states no picture size";
  }
  return undefined;
}

async function truncation(path: string, meta: ProbeResult, main: ProbeStream, packets: PacketStats | undefined): Promise<string | undefined> {
  const said = packets ? demuxerTruncation(packets.demuxErrors) : undefined;
  if (said) return said;
  if (meta.format.format_name?.split(",")[0] === "wav" && (await wavDataShort(path))) return "its WAV data chunk is longer than the file";
  const own = Number(main.duration);
  const times = packets?.byStream.get(main.index)?.map(([t]) => t) ?? [];
  const short = packetsEndEarly(times, own);
  if (short !== undefined) return `its ${main.codec_type} ends at ${short.toFixed(1)} s of the ${own.toFixed(1)} s it declares`;
  return undefined;
}

function firstPacketTime(packets: PacketStats | undefined, index: number, startTime: number): number {
  const times = packets?.byStream.get(index)?.map(([t]) => t).filter((t) => Number.isFinite(t)) ?? [];
  return times.length ? Math.max(0, Math.min(...times.slice(0, 64)) - startTime) : 0;
}

function describeVideo(
  video: ProbeStream, meta: ProbeResult, packets: PacketStats | undefined, vp: FileVideoPassResult | undefined, failed: boolean,
  startTime: number, notMeasured: Set<FileField>,
): VideoInfo {
  const base = videoStreamInfo(video, meta.format, packets);
  if (!base.bitRateMeasured) notMeasured.add(FILE_FIELD.videoBitRate);
  const info = base.info;
  const transfer = colourTag(video.color_transfer);
  info.frameRateFraction = frameRateFraction(video);
  info.chromaSubsampling = chromaSubsampling(video.pix_fmt);
  info.colorPrimaries = colourTag(video.color_primaries);
  info.colorTransfer = transfer;
  info.colorSpace = colourTag(video.color_space);
  info.hdr = isHdrTransfer(transfer);
  const pts = packets?.byStream.get(video.index)?.map(([t]) => t) ?? [];
  info.frameRateMode = frameRateMode(pts, video.time_base);
  if (!info.frameRateMode) notMeasured.add(FILE_FIELD.frameRateMode);
  const keys = packets?.keyframes.get(video.index) ?? [];
  const finite = pts.filter((t) => Number.isFinite(t));
  const streamStart = finite.length ? Math.min(...finite.slice(0, 64)) : startTime;
  const interval = keyframeIntervalMs(keys, streamStart, streamStart + streamDuration(video, meta.format));
  if (interval === undefined) notMeasured.add(FILE_FIELD.keyframeInterval);
  else info.keyframeIntervalMs = BigInt(interval);
  // From the frames; the header only where the frames give idet nothing to classify. A pass that did not finish
  // measured neither.
  const scan = failed ? "" : judgeScanType(vp?.idet, headerScanType(video));
  if (scan) info.scanType = scan;
  else notMeasured.add(FILE_FIELD.scanType);
  // cropdetect sees frames after ffmpeg's autorotation: its coordinates are in display orientation, as width/height.
  const bars = judgeLetterboxing(vp?.cropFrames ?? [], info.width, info.height);
  if (failed || bars.framesJudged === 0) {
    notMeasured.add(FILE_FIELD.letterboxing).add(FILE_FIELD.pillarboxing).add(FILE_FIELD.bars);
  } else {
    info.letterboxing = bars.kind === "letterbox";
    info.pillarboxing = bars.kind === "pillarbox";
    info.bars = create(BlackBarsSchema, bars.bars);
  }
  return info;
}

function describeAudio(audio: ProbeStream, meta: ProbeResult, packets: PacketStats | undefined, ap: FileAudioPassResult | undefined, notMeasured: Set<FileField>): AudioInfo {
  const base = audioStreamInfo(audio, meta.format, packets);
  if (!base.bitRateMeasured) notMeasured.add(FILE_FIELD.audioBitRate);
  const info = base.info;
  info.bitDepth = audioBitDepth(audio);
  if (ap?.loudness) info.loudness = create(LoudnessSchema, { lufs: ap.loudness.lufs, lra: ap.loudness.lra, truePeak: ap.loudness.truePeak });
  else notMeasured.add(FILE_FIELD.loudness);
  if (ap?.clipped !== undefined) info.clipping = BigInt(ap.clipped);
  else notMeasured.add(FILE_FIELD.clipping);
  return info;
}

async function readHead(path: string): Promise<{ head: Uint8Array; size: number }> {
  const fh = await open(path, "r");
  try {
    const { size } = await fh.stat();
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SNIFF_BYTES, 0);
    return { head: buf.subarray(0, bytesRead), size };
  } finally {
    await fh.close();
  }
}

/** Why ffprobe described nothing, as a client-safe refusal. */
function ffprobeRefusal(e: unknown, noun: string, time: { ms: number; cut: boolean }): string {
  if (e instanceof ToolError) {
    // Checked first: the demuxer's refusal of too many streams also reads "Cannot allocate memory".
    if (refusedStreamCount(e.stderr)) return `the file has more than ${MAX_STREAMS} streams; at most ${MAX_STREAMS} are accepted`;
    if (e.reason === "timeout") return time.cut ? `the file was not analysed: ${DEADLINE}` : `the file could not be analysed within ${Number((time.ms / 1000).toFixed(3))} s`;
    const cut = demuxerTruncation(e.stderr);
    if (cut) return `truncated file: ${cut}`;
    const codec = refusedDecoder(e.stderr);
    if (codec) return `unsupported codec: ${codec} is not one the scanner decodes`;
    const size = refusedFrameSize(e.stderr);
    if (size) return `video frame size ${size} is over the limit of ${MAX_PIXELS} pixels (8192x4320)`;
    if (e.reason === "limit") return `the file could not be analysed within its ${e.limit === "cpu" ? "CPU time" : e.limit === "memory" ? "memory" : "output size"} limit`;
  }
  return `not ${noun}: format not recognised`;
}

/** For logs only. */
function describe(e: unknown): string {
  if (e instanceof ToolError) return `${e.message}: ${e.stderr.slice(-500)}`;
  return e instanceof Error ? e.message : String(e);
}
