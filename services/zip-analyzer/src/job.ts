import { create } from "@bufbuild/protobuf";
import { ErrorType, ScanErrorSchema, type ScanJob } from "@cva/contracts";
import type { JobOutcome } from "@cva/platform";
import type { ZipAnalyzer } from "./analyzer.ts";
import { ZipError } from "./errors.ts";
import { RenderUnavailableError } from "./render-via-dispatcher.ts";

/**
 * One zip job → its outcome (the queue worker's and the direct AnalyzeZip's `run`). A refused zip is the client's
 * fault (payload_error, message as is); a render that could not be had is processing_error (not charged, retryable);
 * anything else is thrown for the worker to log and answer with its generic processing_error, so no internal detail
 * reaches the client. No scan_results: the edge evaluates the spec set (edge/src/scan/outcome.ts).
 */
export async function runJob(analyzer: ZipAnalyzer, job: ScanJob, ctx: { signal?: AbortSignal } = {}): Promise<JobOutcome> {
  try {
    return { case: "zip", value: await analyzer.analyze(job, { signal: ctx.signal }) };
  } catch (err) {
    // Refusals are logged once, by the worker's "job done" line (error_type, error_message).
    if (err instanceof ZipError) {
      return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: err.message }) };
    }
    if (err instanceof RenderUnavailableError) {
      return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PROCESSING, message: err.clientMessage }) };
    }
    throw err;
  }
}
