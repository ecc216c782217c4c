import { chmod, chown, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { create } from "@bufbuild/protobuf";
import {
  FileInfoSchema,
  ImageSchema,
  LoudnessSchema,
  MediaProbeSchema,
  type Image,
  type MediaInput,
  type MediaProbe,
} from "@cva/contracts";
import type { ArtifactSink, OutboundPolicy } from "@cva/platform";
import { describeFailures, planAnalysis, runAnalysis, startPass, thumbnailFromImage, type PassOutcome, type PassRun } from "./analysis-pass.ts";
import { planAudioPass } from "./audio-pass.ts";
import { dominantColour } from "./colour.ts";
import { containerFacts } from "./container-info.ts";
import { MAX_PIXELS, refusedDecoder, refusedFrameSize, SAFE_INPUT_OPTIONS } from "./decode-limits.ts";
import { downloadMedia } from "./download.ts";
import { toolUser, ToolError, type ResourceLimits } from "./exec.ts";
import { probeDescribed, type PacketStats, type ProbeResult } from "./ffprobe.ts";
import { judgeLetterboxing } from "./letterbox.ts";
import { discardEarly, keptRun, planPictures, sameFlashPass, sameVideoPass, startEarlyPictures } from "./early-pictures.ts";
import { withFlashes } from "./flash-fields.ts";
import type { FlashVerdict } from "./flash-frames.ts";
import { followFlashFrames } from "./file-flash-follow.ts";
import {
  canCarryPictureCaptions, captionsUnmeasured, FLASH_FIELD_KEYS, mediaAccessibility, VAST_FLASHES_NOT_MEASURED,
} from "./media-accessibility.ts";
import { moovAtomPosition } from "./mp4-boxes.ts";
import { FIELD, type NotMeasuredField } from "./not-measured.ts";
import { SNIFF_BYTES, sniffMedia } from "./sniff.ts";
import { audioStreamInfo, containerInfo, videoStreamInfo } from "./stream-info.ts";
import { pickAudioStream, pickVideoStream, streamDuration } from "./video-info.ts";

/** The subset of pino the prober uses. */
export interface LoggerLike {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface MediaProberLimits {
  /** Largest download accepted, bytes. */
  maxBytes: number;
  /** Whole download including redirects. */
  downloadTimeoutMs: number;
  /** Each ffprobe/ffmpeg process. */
  ffmpegTimeoutMs: number;
  /**
   * The one decode pass (loudness, letterboxing, images), which takes longest; = ffmpegTimeoutMs unless set. When it
   * runs out, what it had finished is kept and the rest is reported as not measured.
   */
  analysisTimeoutMs?: number;
  /** OS limits on every ffprobe/ffmpeg process (exec.ts); defaults there. */
  processLimits?: Partial<ResourceLimits>;
  /** Start the picture passes beside ffprobe when an MP4's index predicts them (early-pictures.ts; default true). */
  earlyPictures?: boolean;
}

export const DEFAULT_LIMITS: MediaProberLimits = {
  maxBytes: 200 * 1024 * 1024,
  downloadTimeoutMs: 60_000,
  ffmpegTimeoutMs: 60_000,
};

export interface MediaProberDeps {
  policy: OutboundPolicy;
  artifacts: ArtifactSink;
  logger?: LoggerLike;
  limits?: Partial<MediaProberLimits>;
  /** Parent of the per-probe temp directories; the OS temp dir by default. */
  workDir?: string;
}

export interface ProbeOptions {
  /**
   * Unix ms by which the probe must have answered (its job's deadline less the time to publish): every phase gets at
   * most what is left, and what the deadline cut short is reported as such rather than lost to an abort.
   */
  deadlineMs?: number;
}

export interface MediaProber {
  /**
   * Never throws for what the remote file is or does (that becomes `error`); only an abort rejects. `logger` overrides
   * the prober's own for this probe (a child logger carrying the job_id).
   */
  probe(input: MediaInput, signal?: AbortSignal, logger?: LoggerLike, opts?: ProbeOptions): Promise<MediaProbe>;
}

/** What a phase may take: its own limit, or less when the deadline is nearer (`cut`: the deadline sets it). */
function timeLeft(limitMs: number, deadlineMs: number | undefined): { ms: number; cut: boolean } {
  if (deadlineMs === undefined) return { ms: limitMs, cut: false };
  const left = deadlineMs - Date.now();
  return left < limitMs ? { ms: Math.max(0, Math.floor(left)), cut: true } : { ms: limitMs, cut: false };
}

const DEADLINE_REACHED = "the scan's deadline was reached";

type ProbeInit = Parameters<typeof create<typeof MediaProbeSchema>>[1] & object;

export function createMediaProber(deps: MediaProberDeps): MediaProber {
  const limits: MediaProberLimits = { ...DEFAULT_LIMITS, ...deps.limits };
  async function probe(input: MediaInput, signal?: AbortSignal, logger?: LoggerLike, opts: ProbeOptions = {}): Promise<MediaProbe> {
    const log = logger ?? deps.logger;
    const started = performance.now();
    // One private directory per probe: the download and every ffmpeg output live there and go away together.
    // Absolute, so that ffmpeg can never read the path as "protocol:...".
    const dir = await mkdtemp(join(resolve(deps.workDir ?? tmpdir()), "cva-media-"));
    // The decoders run as toolUser() when this process is root: the directory is theirs (0700) for their images; the
    // download in it stays ours.
    const user = toolUser();
    if (user) await chown(dir, user.uid, user.gid);
    const phaseMs: PhaseMs = {};
    try {
      const result = await probeIn(dir, input, signal, log, phaseMs, opts.deadlineMs);
      log?.info(
        {
          url: input.url, http_code: result.httpCode, file_size: Number(result.fileSize), error: result.error || undefined,
          ms: Math.round(performance.now() - started), phase_ms: phaseMs,
        },
        "media probed",
      );
      return result;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function probeIn(
    dir: string, input: MediaInput, signal: AbortSignal | undefined, log: LoggerLike | undefined, phaseMs: PhaseMs,
    deadlineMs: number | undefined,
  ): Promise<MediaProbe> {
    const lap = lapTimer(phaseMs);
    // A fixed local name: nothing from the URL ever becomes part of a path or an ffmpeg argument.
    const file = join(dir, "media");
    // The requester's cap (its scan's byte budget left) when it is below our own.
    const budgetCap = Number(input.maxBytes);
    const byBudget = budgetCap > 0 && budgetCap < limits.maxBytes;
    const dlTime = timeLeft(limits.downloadTimeoutMs, deadlineMs);
    if (dlTime.ms <= 0) {
      return create(MediaProbeSchema, { url: input.url, error: `media file not downloaded: ${DEADLINE_REACHED}`, notMeasured: [FIELD.fileSize, FIELD.downloadSpeed] });
    }
    const dl = await downloadMedia(input.url, file, {
      policy: deps.policy, maxBytes: byBudget ? budgetCap : limits.maxBytes, timeoutMs: dlTime.ms, signal,
      capSource: byBudget ? "scan_budget" : "limit", deadlineCut: dlTime.cut,
    });
    lap("download");
    const init: ProbeInit = {
      url: input.url,
      httpCode: dl.httpCode,
      fileSize: BigInt(dl.fileSize),
      downloadTimeMs: BigInt(dl.downloadTimeMs),
      downloadSpeed: dl.downloadSpeed,
      receivedBytes: BigInt(dl.receivedBytes),
    };
    const fail = (error: string) => create(MediaProbeSchema, { ...init, error });
    // No answer at all (refused, unreachable, timed out, over the size cap): no size or speed was measured. An HTTP
    // error answer has both (its body).
    if (dl.error && dl.httpCode === 0) return create(MediaProbeSchema, { ...init, error: dl.error, notMeasured: [FIELD.fileSize, FIELD.downloadSpeed] });
    if (dl.error) return fail(dl.error);

    const head = await readHead(file);
    const sniff = sniffMedia(head, dl.fileSize);
    if (!sniff.media) return fail(`not a media file: ${sniff.reason}`);
    // Readable by the decoders whatever this process's umask made of it; still ours, so they cannot change it.
    if (toolUser()) await chmod(file, 0o644);

    const probeTime = timeLeft(limits.ffmpegTimeoutMs, deadlineMs);
    if (probeTime.ms <= 0) return fail(`media not analysed: ${DEADLINE_REACHED}`);
    const toolOpts = { timeoutMs: probeTime.ms, signal, limits: limits.processLimits };
    // The audio pass needs nothing from ffprobe but the audio stream, and it is the longest of the passes (every
    // sample decoded, then ebur128's true peak): it starts now, on the first audio stream, beside ffprobe and the
    // packet scan, instead of after them (ffprobe is ~80 ms of a ~400 ms probe on the bench's 15 s 720p file). It is
    // kept when that is the stream pickAudioStream chooses, else stopped (no audio, another default stream, not media):
    // the same whitelists and OS limits as every pass, so nothing reaches a decoder that would not have anyway.
    const earlyTime = timeLeft(limits.analysisTimeoutMs ?? limits.ffmpegTimeoutMs, deadlineMs);
    const earlyStop = new AbortController();
    const earlyPlan = planAudioPass({ input: file, outDir: dir, audioIndex: "a:0" });
    const earlyOpts = {
      ...toolOpts, timeoutMs: Math.max(1, earlyTime.ms), signal: signal ? AbortSignal.any([signal, earlyStop.signal]) : earlyStop.signal,
    };
    const earlyRun: Promise<PassRun | { err: unknown }> = startPass(earlyPlan.args, earlyOpts).catch((err: unknown) => ({ err }));
    const stopEarly = async () => {
      earlyStop.abort(new Error("not needed"));
      await earlyRun;
    };
    // The description and the packet scan (demux only: bit rates, keyframe times for the video pass) from one ffprobe
    // (ffprobe.ts probeWithPackets: one process less beside the audio pass on a 2-core machine).
    const probing = probeDescribed(file, toolOpts).then((r) => ({ r }), (err: unknown) => ({ err }));
    // The picture passes too, when an MP4's own index predicts their commands (early-pictures.ts): kept below when
    // ffprobe's facts plan the same ones.
    const early = earlyTime.ms > 0 && limits.earlyPictures !== false
      ? await startEarlyPictures(file, dir, head, input.analyzeFlashes, { ...toolOpts, timeoutMs: earlyTime.ms })
      : undefined;
    const stopPictures = () => Promise.all([discardEarly(early?.video), discardEarly(early?.flash)]);
    let meta: ProbeResult;
    let packets: PacketStats | undefined;
    try {
      const probed = await probing;
      if ("err" in probed) throw probed.err;
      let packetsError: unknown;
      ({ meta, packets, packetsError } = probed.r);
      if (packetsError) log?.warn({ err: describe(packetsError) }, "packet statistics failed; the description alone was read");
    } catch (e) {
      await Promise.all([stopEarly(), stopPictures()]);
      if (signal?.aborted) throw e;
      log?.warn({ url: input.url, err: describe(e) }, "ffprobe refused the file");
      return fail(ffprobeFailure(e, probeTime));
    }
    const video = pickVideoStream(meta.streams);
    const audio = pickAudioStream(meta.streams);
    if (!video && !audio) {
      await Promise.all([stopEarly(), stopPictures()]);
      return fail("not a media file: no audio or video stream");
    }
    const firstAudio = meta.streams.find((s) => s.codec_type === "audio");
    const keepEarly = audio !== undefined && audio.index === firstAudio?.index && earlyTime.ms > 0;
    if (!keepEarly) await stopEarly();
    lap("probe");
    const container = containerFacts(meta.format, head, video !== undefined);
    const moov = container.formatName.startsWith("mov") ? await moovAtomPosition(file) : "";
    if (signal?.aborted) {
      await Promise.all([stopEarly(), stopPictures()]);
      throw signal.reason;
    }
    lap("packets");
    const videoDuration = video ? streamDuration(video, meta.format) : 0;
    // Packet times are the container's; ffmpeg's filters see them minus the file's start time.
    const startTime = Number(meta.format.start_time) || 0;

    const plan = planAnalysis({ input: file, outDir: dir, audio: audio ? { index: audio.index } : undefined });
    // The video pass and the flash pass (on the rendition the VAST analyzer chose: flash-pass.ts, every frame, a
    // process of its own beside the audio and video passes), from ffprobe's facts.
    const pictures = video
      ? planPictures(file, dir, {
        video, duration: videoDuration, keyframes: (packets?.keyframes.get(video.index) ?? []).map((t) => t - startTime),
      }, input.analyzeFlashes)
      : undefined;
    plan.video = pictures?.video;
    // An early picture pass is the probe's when ffprobe's facts planned the very same command (early-pictures.ts).
    const keepVideo = !!(early?.video && pictures && sameVideoPass(early.video.plan, pictures.video));
    const keepFlash = !!(early?.flash && pictures?.flash && sameFlashPass(early.flash.plan, pictures.flash));
    await Promise.all([keepVideo ? undefined : discardEarly(early?.video), keepFlash ? undefined : discardEarly(early?.flash)]);
    // The audio pass already running (started beside ffprobe) is this plan's audio pass.
    if (keepEarly) plan.audio = earlyPlan;
    const audioStarted = keepEarly
      ? earlyRun.then((r) => {
        if ("err" in r) throw r.err;
        return r;
      })
      : undefined;
    // Handled by runAnalysis when it runs; when the deadline leaves no time for it, the early pass is stopped below and
    // this rejects with no one to hear it — an unhandled rejection, which ends a Node process (found by a CI run of
    // hardening.test.ts's near-deadline job).
    audioStarted?.catch(() => {});
    const passTime = timeLeft(limits.analysisTimeoutMs ?? limits.ffmpegTimeoutMs, deadlineMs);
    const passOpts = { ...toolOpts, timeoutMs: Math.max(1, passTime.ms) };
    const flashPass = pictures?.flash;
    const flashPlan = flashPass?.flash;
    let outcome: PassOutcome;
    let flashRun: PassRun | undefined;
    // The flash analysis runs while the pass writes its grid (file-flash-follow.ts, as scanVideo's), not after it.
    const follower = flashPlan && passTime.ms > 0 ? (keepFlash ? early!.flash!.follower : followFlashFrames(flashPlan)) : undefined;
    try {
      if (passTime.ms <= 0) await Promise.all([stopEarly(), keepVideo && discardEarly(early?.video), keepFlash && discardEarly(early?.flash)]);
      const videoStarted = keepVideo ? keptRun(early!.video!) : undefined;
      [outcome, flashRun] = passTime.ms <= 0
        ? [{ result: { cropFrames: [] }, failure: `media analysis skipped: ${DEADLINE_REACHED}`, audioFailed: true, videoFailed: true, ms: {} }, undefined]
        : await Promise.all([
          runAnalysis(plan, passOpts, undefined, {
            deadlineCut: passTime.cut || ((keepEarly || keepVideo) && earlyTime.cut), audioStarted, videoStarted,
          }),
          flashPass ? (keepFlash ? keptRun(early!.flash!) : startPass(flashPass.args, passOpts)) : undefined,
        ]);
    } catch (e) {
      if (signal?.aborted) {
        await follower?.finish(false, 0);
        throw e;
      }
      // runAnalysis only rejects on abort or a bug; either way nothing of the passes was measured.
      log?.warn({ url: input.url, err: describe(e) }, "analysis failed");
      outcome = { result: { cropFrames: [] }, failure: "media could not be decoded", audioFailed: true, videoFailed: true, ms: {} };
    }
    if (outcome.failure) log?.warn({ url: input.url, err: outcome.failure }, "analysis pass cut short");
    lap("passes");
    phaseMs.audio_pass = outcome.ms.audio;
    phaseMs.video_pass = outcome.ms.video;
    if (flashRun) phaseMs.flash_pass = Math.round(flashRun.ms);
    if (early) phaseMs.early = keepVideo && (keepFlash || !flashPass) ? "kept" : "replanned";
    // A verdict over the whole video only: from a flash pass that finished.
    const flashes: FlashVerdict | undefined = await follower?.finish(!!flashRun && !flashRun.failure, videoDuration);
    const pass = outcome.result;
    const notMeasured = new Set<NotMeasuredField>();

    // ---- container
    const containerInfoMsg = containerInfo(meta.format, container, moov, dl.fileSize, videoDuration);

    // ---- video
    let videoInfo;
    if (video) {
      const base = videoStreamInfo(video, meta.format, packets);
      if (!base.bitRateMeasured) notMeasured.add(FIELD.videoBitRate);
      // No verdict from a pass that did not finish, nor from a video with no frame of picture content (all black).
      // cropdetect sees frames after ffmpeg's autorotation, so its coordinates are in display orientation.
      const letterbox = judgeLetterboxing(pass.cropFrames, base.info.width, base.info.height);
      if (outcome.videoFailed || letterbox.framesJudged === 0) notMeasured.add(FIELD.letterboxing);
      videoInfo = base.info;
      videoInfo.letterboxing = letterbox.letterboxing;
    }

    // ---- audio
    let audioInfo;
    if (audio) {
      const base = audioStreamInfo(audio, meta.format, packets);
      if (!base.bitRateMeasured) notMeasured.add(FIELD.audioBitRate);
      if (!pass.loudness) notMeasured.add(FIELD.loudness);
      audioInfo = base.info;
      if (pass.loudness) audioInfo.loudness = create(LoudnessSchema, { lufs: pass.loudness.lufs, lra: pass.loudness.lra, truePeak: pass.loudness.truePeak });
    }

    // ---- accessibility: captions and audio description; flashes on the rendition the VAST analyzer flagged (the
    // others say where the verdict is: flashes_judged false, and the edge shows no flash field for them).
    const cc = canCarryPictureCaptions(video) ? pass.pictureCaptions : false;
    const accessibility = mediaAccessibility(meta.streams, video, cc);
    if (captionsUnmeasured(accessibility, video, cc)) notMeasured.add(FIELD.captions);
    if (!video) accessibility.flashesNotJudgedReason = "the file has no video";
    else if (!input.analyzeFlashes) accessibility.flashesNotJudgedReason = VAST_FLASHES_NOT_MEASURED;
    else if (flashes && flashPlan) withFlashes(accessibility, flashes, flashPlan);
    else {
      for (const k of FLASH_FIELD_KEYS) notMeasured.add(FIELD[k]);
      accessibility.flashesNotJudgedReason = !flashPlan ? "the video has no picture size"
        : flashRun?.failure ? `the flash pass did not finish (${describeFailures(undefined, flashRun.failure, passOpts.timeoutMs, passTime.cut) ?? "video could not be decoded"})`
        : outcome.failure ?? "no frame could be analysed";
    }

    // ---- images
    const put = async (data: Buffer | undefined, mimeType: string, color = ""): Promise<Image | undefined> => {
      if (!data) return undefined;
      const id = await deps.artifacts.put(data, mimeType);
      return create(ImageSchema, { id, bytes: BigInt(data.length), mimeType, color });
    };
    const posterColour = pass.posterRgb ? dominantColour(pass.posterRgb) : "";
    let firstFrame = pass.firstFrame;
    let firstColour = pass.firstFrameRgb ? dominantColour(pass.firstFrameRgb) : "";
    let thumbnail = pass.thumbnail;
    let poster = pass.poster;
    let posterC = posterColour;
    if (video && !firstFrame && poster) {
      // No visible frame in the first seconds: the poster (near the middle) stands in for the screenshot.
      firstFrame = poster;
      firstColour = posterColour;
      const posterPath = join(dir, "fallback-poster.jpg");
      await writeFile(posterPath, poster);
      thumbnail = await thumbnailFromImage(posterPath, join(dir, "fallback-thumb.jpg"), toolOpts).catch((e) => {
        if (signal?.aborted) throw e;
        return undefined;
      });
    }
    if (video && !poster && firstFrame) {
      // No poster frame (a single-frame video, or no keyframe index and none after the middle): the first frame is the poster.
      poster = firstFrame;
      posterC = firstColour;
    }
    const [posterImg, firstImg, thumbImg, stripImg, waveImg] = await Promise.all([
      put(poster, "image/jpeg", posterC),
      put(firstFrame, "image/jpeg", firstColour),
      put(thumbnail, "image/jpeg", firstColour),
      put(pass.filmStrip, "image/jpeg"),
      put(pass.audioWave, "image/png"),
    ]);

    lap("store");
    if (video && !posterImg) notMeasured.add(FIELD.poster);
    if (video && !stripImg) notMeasured.add(FIELD.filmStrip);
    if (audio && !waveImg) notMeasured.add(FIELD.audioWave);

    return create(MediaProbeSchema, {
      ...init,
      fileInfo: create(FileInfoSchema, { container: containerInfoMsg, video: videoInfo, audio: audioInfo }),
      poster: posterImg,
      firstFrame: firstImg,
      thumbnail: thumbImg,
      filmStrip: stripImg,
      filmStripTimesMs: stripImg ? (pass.filmStripTimesMs ?? []).map(BigInt) : [],
      audioWave: waveImg,
      analysisError: outcome.failure ?? "",
      accessibility,
      notMeasured: [...notMeasured],
    });
  }

  return { probe };
}

/**
 * Where a probe's time went, for the "media probed" log line: download, ffprobe (its description and the packet scan,
 * one process), `packets` (what follows it before the passes: the moov position), both passes (side by side: `passes` is the longer, `audio_pass`/`video_pass` each one's own), and
 * storing the images.
 */
interface PhaseMs {
  download?: number; probe?: number; packets?: number; passes?: number; audio_pass?: number; video_pass?: number; flash_pass?: number; store?: number;
  /** Not a time: the picture passes started beside ffprobe from an MP4's index (early-pictures.ts) were all kept, or one was re-planned. */
  early?: "kept" | "replanned";
}

type LapPhase = "download" | "probe" | "packets" | "passes" | "store";

function lapTimer(into: PhaseMs): (phase: LapPhase) => void {
  let last = performance.now();
  return (phase) => {
    const now = performance.now();
    into[phase] = Math.round(now - last);
    last = now;
  };
}

async function readHead(path: string): Promise<Uint8Array> {
  const fh = await open(path, "r");
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** For logs only: never sent to clients. */
function describe(e: unknown): string {
  if (e instanceof ToolError) return `${e.message}: ${e.stderr.slice(-500)}`;
  return e instanceof Error ? e.message : String(e);
}

/** Why ffprobe described nothing, for the client: the decoder or frame size refused, an OS limit, time, or no format. */
function ffprobeFailure(e: unknown, time: { ms: number; cut: boolean }): string {
  if (e instanceof ToolError) {
    if (e.reason === "timeout") return time.cut ? `media analysis stopped: ${DEADLINE_REACHED}` : `media analysis timed out after ${Number((time.ms / 1000).toFixed(3))} s`;
    if (e.reason === "limit") return `media analysis stopped at its ${e.limit === "cpu" ? "CPU time" : e.limit === "memory" ? "memory" : "output size"} limit`;
    const codec = refusedDecoder(e.stderr);
    if (codec) return `unsupported media codec: ${codec} is not one the prober decodes`;
    const size = refusedFrameSize(e.stderr);
    if (size) return `video frame size ${size} is over the limit of ${MAX_PIXELS} pixels (8192x4320); not analysed`;
  }
  return "not a media file: format not recognised";
}
