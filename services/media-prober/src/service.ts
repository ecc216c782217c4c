import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { mediaprober, type ScanJob, type ScanJobResult } from "@cva/contracts";
import type { Logger } from "@cva/platform";
import type { LoggerLike, MediaProber } from "./prober.ts";

export type JobOutcome = ScanJobResult["outcome"];

/** Probes in progress across the queue worker and direct RPCs, so that both respect MEDIA_PROBER_SLOTS. */
export interface Slots {
  tryAcquire(): boolean;
  /** For the queue worker, which only pulls as many jobs as it has slots and so is never refused. */
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

/** Thrown for a job that is not a media job; the worker answers it with a generic processing error. */
export class NotAMediaJobError extends Error {}

/**
 * One SCAN_KIND_MEDIA job → its outcome. Whatever the remote file is or does is inside the MediaProbe (`error`);
 * only an abort or a bug throws.
 */
export async function probeJob(prober: MediaProber, job: ScanJob, signal?: AbortSignal, logger?: LoggerLike): Promise<JobOutcome> {
  if (job.input.case !== "media") throw new NotAMediaJobError(`job ${job.jobId} carries no media input`);
  const probe = await prober.probe(job.input.value, signal, logger);
  return { case: "media", value: probe };
}

/** Direct ProbeMedia for internal callers; RESOURCE_EXHAUSTED when every slot is busy. */
export function createMediaProberService(
  prober: MediaProber,
  slots: Slots,
  opts: { logger?: Logger } = {},
): ServiceImpl<typeof mediaprober.MediaProberService> {
  return {
    async probeMedia(req, context) {
      const job = req.job;
      if (!job) throw new ConnectError("job is required", Code.InvalidArgument);
      if (job.input.case !== "media") throw new ConnectError("job.media is required", Code.InvalidArgument);
      if (!job.input.value.url) throw new ConnectError("job.media.url is required", Code.InvalidArgument);
      if (!slots.tryAcquire()) throw new ConnectError("no worker resources: the media prober is busy", Code.ResourceExhausted);
      try {
        const outcome = await probeJob(prober, job, context.signal, opts.logger?.child({ job_id: job.jobId }));
        if (outcome.case !== "media") throw new Error("unexpected outcome");
        return create(mediaprober.ProbeMediaResponseSchema, { probe: outcome.value });
      } catch (err) {
        if (context.signal.aborted) throw new ConnectError("cancelled", Code.Canceled);
        opts.logger?.warn({ job_id: job.jobId, err: err instanceof Error ? err.message : String(err) }, "media probe failed");
        throw new ConnectError("the media file could not be probed", Code.Internal);
      } finally {
        slots.release();
      }
    },
  };
}
