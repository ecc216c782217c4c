import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { ErrorType, ScanErrorSchema, tagscanner, type ScanJob, type TagReport } from "@cva/contracts";
import type { DirectRunner, JobOutcome } from "@cva/platform";
import { UnknownSpecSetError, evaluateTag } from "@cva/spec-sets";
import type { TagScanner } from "./scanner.ts";

/**
 * One tag job → its outcome. v3 reports get scan_results from the spec-set engine (@cva/spec-sets); an unknown
 * spec_id is the client's error. The creative's own misbehaviour lives inside the report; only bugs throw.
 */
export async function scanJob(scanner: TagScanner, job: ScanJob, signal?: AbortSignal): Promise<JobOutcome> {
  if (job.input.case !== "tag") {
    return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: "the job carries no ad tag" }) };
  }
  const report: TagReport = await scanner.scan(job, signal);
  if (job.apiVersion === "v3") {
    try {
      report.scanResults = evaluateTag(report, job.specId);
    } catch (err) {
      if (err instanceof UnknownSpecSetError)
        return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: `unknown spec_id ${job.specId}` }) };
      throw err;
    }
  }
  return { case: "tag", value: report };
}

/** Direct ScanTag for internal callers; RESOURCE_EXHAUSTED when every slot is busy. */
export function createTagScannerService(direct: DirectRunner): ServiceImpl<typeof tagscanner.TagScannerService> {
  return {
    async scanTag(req, context) {
      return { report: await direct(req.job, context.signal, { report: "tag", expect: "tag" }) };
    },
  };
}
