import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { ErrorType, ScanErrorSchema, tagscanner, type ScanJob, type ScanJobResult, type TagReport } from "@cva/contracts";
import { UnknownSpecSetError, evaluateTag } from "@cva/spec-sets";
import type { ScanLogger, TagScanner } from "./scanner.ts";

export type JobOutcome = ScanJobResult["outcome"];

/** Scans in progress across the queue worker and direct RPCs, so that both respect the pool's capacity. */
export interface Slots {
  tryAcquire(): boolean;
  /** For the queue worker, which only pulls as many jobs as it has free slots and so is never refused. */
  acquire(): void;
  release(): void;
  busy(): number;
}

export function createSlots(size: number): Slots {
  let busy = 0;
  return {
    tryAcquire() {
      if (busy >= size) return false;
      busy++;
      return true;
    },
    acquire() {
      busy++;
    },
    release() {
      busy = Math.max(0, busy - 1);
    },
    busy: () => busy,
  };
}

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
export function createTagScannerService(scanner: TagScanner, slots: Slots, opts: { logger?: ScanLogger } = {}): ServiceImpl<typeof tagscanner.TagScannerService> {
  return {
    async scanTag(req, context) {
      const job = req.job;
      if (!job) throw new ConnectError("job is required", Code.InvalidArgument);
      if (job.input.case !== "tag") throw new ConnectError("job.tag is required", Code.InvalidArgument);
      if (!slots.tryAcquire()) throw new ConnectError("no worker resources: the tag scanner is busy", Code.ResourceExhausted);
      try {
        const outcome = await scanJob(scanner, job, context.signal);
        if (outcome.case === "error") throw new ConnectError(outcome.value.message, Code.InvalidArgument);
        return { report: outcome.value as TagReport };
      } catch (err) {
        if (err instanceof ConnectError) throw err;
        if (context.signal.aborted) throw new ConnectError("cancelled", Code.Canceled);
        opts.logger?.error({ job_id: job.jobId, err: String(err) }, "ScanTag failed");
        throw new ConnectError("the tag could not be scanned", Code.Internal);
      } finally {
        slots.release();
      }
    },
  };
}
