import { create } from "@bufbuild/protobuf";
import { ErrorType, ScanErrorSchema, type ScanJob } from "@cva/contracts";
import type { JobOutcome } from "@cva/platform";
import type { VastAnalyzer } from "./analyzer.ts";
import { VastInputError } from "./errors.ts";

/**
 * One VAST job → its outcome (the queue worker's and the direct AnalyzeVast's `run`). A refused VAST URL is the
 * client's fault (payload_error, message as is); anything else is thrown for the worker / RPC to log and answer with a
 * generic processing_error, so no internal detail leaks. No scan_results: the edge evaluates the spec set
 * (edge/src/scan/outcome.ts).
 */
export async function runJob(analyzer: VastAnalyzer, job: ScanJob, ctx: { signal?: AbortSignal } = {}): Promise<JobOutcome> {
  try {
    return { case: "vast", value: await analyzer.analyze(job, ctx.signal) };
  } catch (err) {
    // Logged once, by the worker's "job done" line (error_type, error_message).
    if (err instanceof VastInputError) {
      return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: err.message }) };
    }
    throw err;
  }
}
