import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { ErrorType, zipanalyzer } from "@cva/contracts";
import type { ZipAnalyzer } from "./analyzer.ts";
import { analyzeToOutcome } from "./job-outcome.ts";
import type { Logger } from "./logger.ts";

/** Counts jobs in progress across the queue worker and direct RPCs, so both respect ZIP_ANALYZER_SLOTS. */
export interface Slots {
  /** For direct calls: false when full. */
  tryAcquire(): boolean;
  /** For queue jobs, already fetched within the worker's own slot count: always counted. */
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

/** Direct (synchronous) AnalyzeZip for internal callers; refused with RESOURCE_EXHAUSTED when every slot is busy. */
export function createZipAnalyzerService(
  analyzer: ZipAnalyzer, slots: Slots, logger?: Logger,
): ServiceImpl<typeof zipanalyzer.ZipAnalyzerService> {
  return {
    async analyzeZip(req, context) {
      const job = req.job;
      if (!job) throw new ConnectError("job is required", Code.InvalidArgument);
      if (!slots.tryAcquire()) throw new ConnectError("no worker resources: the zip analyzer is busy", Code.ResourceExhausted);
      try {
        const outcome = await analyzeToOutcome(analyzer, job, { signal: context.signal, logger });
        if (outcome.case === "zip") return create(zipanalyzer.AnalyzeZipResponseSchema, { report: outcome.value });
        if (outcome.case === "error" && outcome.value.type === ErrorType.PAYLOAD) {
          throw new ConnectError(outcome.value.message, Code.InvalidArgument);
        }
        throw new ConnectError(outcome.case === "error" ? outcome.value.message : "the scan could not be completed", Code.Unavailable);
      } catch (err) {
        if (err instanceof ConnectError) throw err;
        logger?.warn({ job_id: job.jobId, err: err instanceof Error ? err.message : String(err) }, "zip analysis failed");
        throw new ConnectError("the scan could not be completed", Code.Internal);
      } finally {
        slots.release();
      }
    },
  };
}
