import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { ErrorType, vastanalyzer } from "@cva/contracts";
import type { Logger } from "@cva/platform";
import type { VastAnalyzer } from "./analyzer.ts";
import { analyzeToOutcome, type Evaluate } from "./job-outcome.ts";

/** Jobs in progress across the queue worker and direct RPCs, so that both respect VAST_ANALYZER_SLOTS. */
export interface Slots {
  tryAcquire(): boolean;
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
    // The queue worker only pulls as many jobs as it has slots, so it never needs to be refused.
    acquire() {
      busy++;
    },
    release() {
      busy = Math.max(0, busy - 1);
    },
    busy: () => busy,
  };
}

/** Direct (synchronous) AnalyzeVast for internal callers; RESOURCE_EXHAUSTED when every slot is busy. */
export function createVastAnalyzerService(
  analyzer: VastAnalyzer,
  slots: Slots,
  opts: { logger?: Logger; evaluate?: Evaluate } = {},
): ServiceImpl<typeof vastanalyzer.VastAnalyzerService> {
  return {
    async analyzeVast(req, context) {
      const job = req.job;
      if (!job) throw new ConnectError("job is required", Code.InvalidArgument);
      if (job.input.case !== "vast") throw new ConnectError("job.vast is required", Code.InvalidArgument);
      if (!slots.tryAcquire()) throw new ConnectError("no worker resources: the VAST analyzer is busy", Code.ResourceExhausted);
      try {
        const outcome = await analyzeToOutcome(analyzer, job, { signal: context.signal, ...opts });
        if (outcome.case === "vast") return create(vastanalyzer.AnalyzeVastResponseSchema, { report: outcome.value });
        if (outcome.case === "error" && outcome.value.type === ErrorType.PAYLOAD) {
          throw new ConnectError(outcome.value.message, Code.InvalidArgument);
        }
        throw new ConnectError("the scan could not be completed", Code.Unavailable);
      } catch (err) {
        if (err instanceof ConnectError) throw err;
        opts.logger?.warn({ job_id: job.jobId, err: err instanceof Error ? err.message : String(err) }, "vast analysis failed");
        throw new ConnectError("the scan could not be completed", Code.Internal);
      } finally {
        slots.release();
      }
    },
  };
}
