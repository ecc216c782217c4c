import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { create } from "@bufbuild/protobuf";
import {
  AudioFileReportSchema, CreativeFileSchema, CreativeType, ErrorType, MetaSchema, ScanErrorSchema, ScanKind, ScreenshotSchema, VideoFileReportSchema,
  type FileInput, type ScanJob,
} from "@cva/contracts";
import { machineCpu, machineRam, type JobOutcome } from "@cva/platform";
import { toolUser } from "./exec.ts";
import type { FileKind, FileProber } from "./file-prober.ts";
import { fetchFile, type FileSourceDeps, type FileSourceLimits, type LocalFile } from "./file-source.ts";
import type { LoggerLike } from "./prober.ts";

/*
 * One raw video/audio file job (SCAN_KIND_VIDEO_FILE / SCAN_KIND_AUDIO_FILE) → its outcome: the VideoFileReport or
 * AudioFileReport, or a payload_error naming why the file is not one to measure (not media of that kind, unsupported
 * codec, empty or truncated, too many streams, absurd dimensions, over the size limit, a URL that could not be
 * fetched — the outbound layer's message names the host and the cause). The edge fills job_id, name, scan_results'
 * spec and report URL, and the image URLs, as it does for the other reports.
 */

export interface FileJobDeps {
  prober: FileProber;
  source: FileSourceDeps;
  limits: FileSourceLimits;
  /** Parent of the per-job temp directories; the OS temp dir by default. */
  workDir?: string;
}

export interface FileJobContext {
  signal: AbortSignal;
  logger?: LoggerLike;
  /** The location the job ran for (meta.server_location). */
  location: string;
}

/** Kept back from a job's deadline to store the images and publish the report (as for VAST media probes). */
export const FILE_REPLY_RESERVE_MS = 1_500;

/** The file kinds this worker measures, by scan kind. */
export const FILE_KINDS: ReadonlyMap<ScanKind, FileKind> = new Map([
  [ScanKind.VIDEO_FILE, "video"],
  [ScanKind.AUDIO_FILE, "audio"],
]);

/** Thrown for a job whose kind and input disagree: a requester bug, answered as a processing error by the worker. */
export class NotAFileJobError extends Error {}

function inputOf(job: ScanJob, kind: FileKind): FileInput {
  const want = kind === "video" ? "videoFile" : "audioFile";
  if (job.input.case !== want) throw new NotAFileJobError(`job ${job.jobId} of kind ${kind} carries no ${want} input`);
  return job.input.value;
}

const payloadError = (message: string): JobOutcome => ({ case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message }) });

export async function runFileJob(deps: FileJobDeps, job: ScanJob, ctx: FileJobContext): Promise<JobOutcome> {
  const kind = FILE_KINDS.get(job.kind);
  if (!kind) throw new NotAFileJobError(`job ${job.jobId} is not a video or audio file job`);
  const input = inputOf(job, kind);
  const started = performance.now();
  const startedAt = Date.now();
  const deadline = Number(job.deadlineUnixMs);
  // Bounded a little before the job's deadline, so that what was measured (and why the rest was not) still reaches
  // the requester.
  const deadlineMs = deadline > 0 ? deadline - FILE_REPLY_RESERVE_MS : undefined;
  // Absolute, so that ffmpeg can never read the path as "protocol:..."; the file's own name is fixed.
  const dir = await mkdtemp(join(resolve(deps.workDir ?? tmpdir()), "cva-file-"));
  // As in prober.ts: as root the decoders run as toolUser(), so the directory (their images) is theirs; the file
  // fetched into it stays ours, readable.
  const user = toolUser();
  if (user) await chown(dir, user.uid, user.gid);
  try {
    const fetched = await fetchFile(input, join(dir, "file"), deps.source, deps.limits, {
      signal: ctx.signal, timeoutMs: deadlineMs !== undefined ? deadlineMs - Date.now() : undefined,
    });
    if ("refused" in fetched) return payloadError(fetched.refused);
    // Written 0600 by this process; the decoders' user reads it (the directory around it is theirs alone).
    if (user) await chmod(fetched.file.path, 0o644);
    const fetchMs = Math.round(performance.now() - started);
    const measured = await deps.prober.probeFile(fetched.file.path, kind, { dir, signal: ctx.signal, deadlineMs, logger: ctx.logger });
    if ("refused" in measured) {
      ctx.logger?.info({ kind, refused: measured.refused, bytes: fetched.file.size }, "file refused");
      return payloadError(measured.refused);
    }
    const f = measured.facts;
    const file = creativeFileOf(input, fetched.file, f.mimeType);
    const meta = fileMetaOf(job, kind === "video" ? CreativeType.VIDEO : CreativeType.AUDIO, { started, startedAt }, ctx.location);
    ctx.logger?.info(
      {
        kind, bytes: fetched.file.size, fetch_ms: fetchMs, ms: Math.round(performance.now() - started), phase_ms: { fetch: fetchMs, ...f.phaseMs },
        // "kept": the video pass started beside ffprobe (phase_ms.video_pass then overlaps probe); "replanned": it did
        // not match ffprobe's plan and ran again after it (file-prober.ts, the early pass).
        early_pass: f.earlyPass, analysis_error: f.analysisError || undefined,
      },
      "file measured",
    );
    const common = {
      jobId: job.jobId, meta, file, fileSize: BigInt(fetched.file.size), fileInfo: f.fileInfo, audioWave: f.audioWave,
      durationMs: BigInt(f.durationMs), notMeasured: f.notMeasured, analysisError: f.analysisError,
    };
    if (kind === "video") {
      return {
        case: "videoFile",
        value: create(VideoFileReportSchema, {
          ...common, filmStrip: f.filmStrip, filmStripTimesMs: f.filmStripTimesMs.map(BigInt), poster: f.poster, accessibility: f.accessibility,
          screenshot: f.firstFrame ? create(ScreenshotSchema, { highres: f.firstFrame, thumbnail: f.thumbnail }) : undefined,
        }),
      };
    }
    return { case: "audioFile", value: create(AudioFileReportSchema, common) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The file as received, for a raw-file report: the client's name (or the URL's), its digest, sniffed and declared types. */
export function creativeFileOf(input: FileInput, local: LocalFile, mimeType: string) {
  const url = input.source.case === "url" ? input.source.value : "";
  return create(CreativeFileSchema, {
    name: input.name || (url ? urlFileName(url) : ""),
    sha256: local.sha256,
    mimeType,
    declaredMimeType: input.mime || local.servedMime,
    size: BigInt(local.size),
    url,
  });
}

/** A raw-file report's meta: `started` is performance.now() and `startedAt` Date.now() when the job began. */
export function fileMetaOf(job: ScanJob, creativeType: CreativeType, at: { started: number; startedAt: number }, location: string) {
  return create(MetaSchema, {
    apiVersion: job.apiVersion || "v3",
    cpu: machineCpu(),
    ram: machineRam(),
    creativeType,
    scanDurationSeconds: Math.round(performance.now() - at.started) / 1000,
    serverLocation: location,
    timestamp: BigInt(Math.floor(at.startedAt / 1000)),
  });
}

/** The last path segment of a URL, decoded, for reports only ("spot.mp4"); "" when there is none. */
export function urlFileName(url: string): string {
  try {
    const seg = basename(new URL(url).pathname);
    return decodeURIComponent(seg).slice(0, 200);
  } catch {
    return "";
  }
}
