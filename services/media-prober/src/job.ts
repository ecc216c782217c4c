import type { ScanJob } from "@cva/contracts";
import type { JobOutcome } from "@cva/platform";
import type { LoggerLike, MediaProber } from "./prober.ts";

/** Kept back from a media job's deadline to store the images and publish the probe. */
export const REPLY_RESERVE_MS = 1_500;

/** Thrown for a job that is not a media job; the worker answers it with a generic processing error. */
export class NotAMediaJobError extends Error {}

/**
 * One SCAN_KIND_MEDIA job → its outcome (the queue worker's and the direct ProbeMedia's `run`). Whatever the remote
 * file is or does is inside the MediaProbe (`error`); only an abort or a bug throws.
 */
export async function runJob(prober: MediaProber, job: ScanJob, ctx: { signal?: AbortSignal; logger?: LoggerLike } = {}): Promise<JobOutcome> {
  if (job.input.case !== "media") throw new NotAMediaJobError(`job ${job.jobId} carries no media input`);
  // The worker aborts the job at its deadline, and the requester stops waiting then: the probe is bounded a little
  // earlier, so that what it measured (and why the rest was not) still reaches the requester.
  const deadline = Number(job.deadlineUnixMs);
  const probe = await prober.probe(job.input.value, ctx.signal, ctx.logger, deadline > 0 ? { deadlineMs: deadline - REPLY_RESERVE_MS } : {});
  return { case: "media", value: probe };
}
