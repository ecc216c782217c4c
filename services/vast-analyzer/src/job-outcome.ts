import { create } from "@bufbuild/protobuf";
import { ErrorType, ScanErrorSchema, type ScanJob, type ScanResults, type VastReport } from "@cva/contracts";
import type { JobOutcome, Logger } from "@cva/platform";
import type { VastAnalyzer } from "./analyzer.ts";
import { VastInputError } from "./errors.ts";

/** scan_results for a report (packages/spec-sets evaluateVast), when that package is available. */
export type Evaluate = (report: VastReport, specId: number) => ScanResults;

/**
 * One VAST job → its outcome. A refused VAST URL is the client's fault (payload_error, message as is); anything else
 * is thrown for the worker / RPC to log and answer with a generic processing_error, so no internal detail leaks.
 */
export async function analyzeToOutcome(
  analyzer: VastAnalyzer,
  job: ScanJob,
  ctx: { signal?: AbortSignal; logger?: Logger; evaluate?: Evaluate },
): Promise<JobOutcome> {
  try {
    const report = await analyzer.analyze(job, ctx.signal);
    if (ctx.evaluate) report.scanResults = ctx.evaluate(report, job.specId);
    return { case: "vast", value: report };
  } catch (err) {
    // Logged once, by the worker's "job done" line (error_type, error_message).
    if (err instanceof VastInputError) {
      return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: err.message }) };
    }
    throw err;
  }
}
