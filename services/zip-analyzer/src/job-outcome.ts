import { create } from "@bufbuild/protobuf";
import { ErrorType, ScanErrorSchema, type ScanJob, type ScanResults, type ZipReport } from "@cva/contracts";
import type { JobOutcome } from "@cva/platform";
import type { ZipAnalyzer } from "./analyzer.ts";
import { ZipError } from "./errors.ts";
import type { Logger } from "./logger.ts";
import { RenderUnavailableError } from "./render-via-dispatcher.ts";

/** scan_results for a v3 zip report (packages/spec-sets evaluateZip). Throws an error named UnknownSpecSetError for an unknown spec_id. */
export type EvaluateZip = (report: ZipReport, specId: number) => ScanResults;

/**
 * One zip job → its outcome. A refused zip is the client's fault (payload_error, message as is); a render that
 * could not be had is processing_error (not charged, retryable); anything else is thrown for the worker to log
 * and answer with its generic processing_error, so no internal detail reaches the client.
 */
export async function analyzeToOutcome(
  analyzer: ZipAnalyzer, job: ScanJob, ctx: { signal?: AbortSignal; logger?: Logger; evaluate?: EvaluateZip } = {},
): Promise<JobOutcome> {
  try {
    const report = await analyzer.analyze(job, { signal: ctx.signal });
    if (job.apiVersion === "v3" && ctx.evaluate) report.scanResults = ctx.evaluate(report, job.specId);
    return { case: "zip", value: report };
  } catch (err) {
    if (err instanceof Error && err.name === "UnknownSpecSetError") {
      return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: `spec_id: unknown spec set ${job.specId}` }) };
    }
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
