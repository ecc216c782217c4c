import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { create } from "@bufbuild/protobuf";
import {
  CreativeType, ErrorType, ImageFileReportSchema, ScanErrorSchema, ScanKind, type ScanJob,
} from "@cva/contracts";
import type { JobOutcome } from "@cva/platform";
import { creativeFileOf, fileMetaOf, NotAFileJobError, FILE_REPLY_RESERVE_MS, type FileJobContext } from "./file-job.ts";
import { fetchFile, type FileSourceDeps } from "./file-source.ts";
import { ImageInputError, type ImageAnalyzer } from "./image/index.ts";

/*
 * One image file job (SCAN_KIND_IMAGE_FILE, POST /v3/scanImage) → its ImageFileReport, or a payload_error naming why
 * the file is not one to measure (empty, over the limit, not an image, a decompression bomb, corrupt, a decode past its
 * bound — the analyzer's ImageInputError messages, client-safe by design — or a URL that could not be fetched). The
 * file comes as the video/audio files do (file-source.ts: the uploads bucket by reference or a `url` under the
 * outbound policy) into a private directory; the analyzer (image/analyzer.ts) decodes it in its bounded worker process.
 * The edge fills job_id's scan_results, report URL and image URLs as for the other reports.
 */
export interface ImageJobDeps {
  analyzer: ImageAnalyzer;
  source: FileSourceDeps;
  /** Largest image, bytes (the analyzer's own limit; the job's max_bytes applies when smaller). */
  maxBytes: number;
  fetchTimeoutMs: number;
  /** Parent of the per-job temp directories; the OS temp dir by default. */
  workDir?: string;
}

const payloadError = (message: string): JobOutcome => ({ case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message }) });

export async function runImageJob(deps: ImageJobDeps, job: ScanJob, ctx: FileJobContext): Promise<JobOutcome> {
  if (job.kind !== ScanKind.IMAGE_FILE || job.input.case !== "imageFile") throw new NotAFileJobError(`job ${job.jobId} is not an image file job`);
  const input = job.input.value;
  const started = performance.now();
  const startedAt = Date.now();
  const deadline = Number(job.deadlineUnixMs);
  const deadlineMs = deadline > 0 ? deadline - FILE_REPLY_RESERVE_MS : undefined;
  // The decoder gets the bytes, not the path: only this process reads the file, so the directory stays ours (0700).
  const dir = await mkdtemp(join(resolve(deps.workDir ?? tmpdir()), "cva-image-"));
  try {
    const fetched = await fetchFile(input, join(dir, "file"), deps.source, { maxBytes: deps.maxBytes, fetchTimeoutMs: deps.fetchTimeoutMs }, {
      signal: ctx.signal, timeoutMs: deadlineMs !== undefined ? deadlineMs - Date.now() : undefined,
      accept: "image/*, */*;q=0.5",
    });
    if ("refused" in fetched) return payloadError(fetched.refused);
    const phaseMs: Record<string, number> = { fetch: Math.round(performance.now() - started) };
    let fields;
    try {
      fields = await deps.analyzer.analyze(fetched.file.path, { signal: ctx.signal, deadline: deadlineMs, phaseMs });
    } catch (e) {
      if (e instanceof ImageInputError) {
        ctx.logger?.info({ kind: "image", refused: e.message, bytes: fetched.file.size }, "file refused");
        return payloadError(e.message);
      }
      throw e;
    }
    const file = creativeFileOf(input, fetched.file, fields.mimeType);
    const meta = fileMetaOf(job, CreativeType.IMAGE, { started, startedAt }, ctx.location);
    ctx.logger?.info(
      { kind: "image", format: fields.format, bytes: fetched.file.size, ms: Math.round(performance.now() - started), phase_ms: phaseMs, analysis_error: fields.analysisError || undefined },
      "file measured",
    );
    return { case: "imageFile", value: create(ImageFileReportSchema, { ...fields, jobId: job.jobId, file, meta }) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
