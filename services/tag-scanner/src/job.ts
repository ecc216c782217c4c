import { create } from "@bufbuild/protobuf";
import { ErrorType, ScanErrorSchema, type ScanJob } from "@cva/contracts";
import type { JobOutcome } from "@cva/platform";
import { PageUrlRefusedError } from "./page-origin.ts";
import type { TagScanner } from "./scanner.ts";

/**
 * One tag job → its outcome (the queue worker's and the direct ScanTag's `run`). The creative's own misbehaviour lives
 * inside the report; only bugs throw. No scan_results: the edge evaluates the spec set (edge/src/scan/outcome.ts).
 */
export async function runJob(scanner: TagScanner, job: ScanJob, ctx: { signal?: AbortSignal } = {}): Promise<JobOutcome> {
  if (job.input.case !== "tag") {
    return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: "the job carries no ad tag" }) };
  }
  try {
    return { case: "tag", value: await scanner.scan(job, ctx.signal) };
  } catch (err) {
    // A page_url on a non-public host is the client's error (page-origin.ts).
    if (err instanceof PageUrlRefusedError) return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: err.message }) };
    throw err;
  }
}
