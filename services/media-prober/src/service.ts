import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { mediaprober, type ScanJob } from "@cva/contracts";
import type { DirectRunner, JobOutcome } from "@cva/platform";
import type { LoggerLike, MediaProber } from "./prober.ts";

// The slot count is @cva/platform's; re-exported because this package's index has always offered it.
export { createSlots, type Slots } from "@cva/platform";

/** Kept back from a media job's deadline to store the images and publish the probe. */
export const REPLY_RESERVE_MS = 1_500;

/** Thrown for a job that is not a media job; the worker answers it with a generic processing error. */
export class NotAMediaJobError extends Error {}

/**
 * One SCAN_KIND_MEDIA job → its outcome. Whatever the remote file is or does is inside the MediaProbe (`error`);
 * only an abort or a bug throws.
 */
export async function probeJob(prober: MediaProber, job: ScanJob, signal?: AbortSignal, logger?: LoggerLike): Promise<JobOutcome> {
  if (job.input.case !== "media") throw new NotAMediaJobError(`job ${job.jobId} carries no media input`);
  // The worker aborts the job at its deadline, and the requester stops waiting then: the probe is bounded a little
  // earlier, so that what it measured (and why the rest was not) still reaches the requester.
  const deadline = Number(job.deadlineUnixMs);
  const probe = await prober.probe(job.input.value, signal, logger, deadline > 0 ? { deadlineMs: deadline - REPLY_RESERVE_MS } : {});
  return { case: "media", value: probe };
}

/** Direct ProbeMedia for internal callers; RESOURCE_EXHAUSTED when every slot is busy. */
export function createMediaProberService(direct: DirectRunner): ServiceImpl<typeof mediaprober.MediaProberService> {
  return {
    async probeMedia(req, context) {
      const job = req.job;
      // Checked before a slot is taken, like the runner's own "job is required" / "job.media is required".
      if (job?.input.case === "media" && !job.input.value.url) throw new ConnectError("job.media.url is required", Code.InvalidArgument);
      return create(mediaprober.ProbeMediaResponseSchema, { probe: await direct(job, context.signal, { report: "media", expect: "media" }) });
    },
  };
}
