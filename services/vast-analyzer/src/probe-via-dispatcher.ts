import { randomUUID } from "node:crypto";
import { ScanKind } from "@cva/contracts";
import { ChildJobError, childJob, childTimeoutMs, runChildJob, servedLocationOf, splitLocations, type JobSubmitter, type Logger } from "@cva/platform";
import { unprobed, type ProbeFn } from "./media.ts";

/**
 * deps.probe for production: each media file becomes a SCAN_KIND_MEDIA child job for a media-prober worker at the VAST
 * job's location, bounded by the VAST job's own deadline. Failures come back as a MediaProbe with a client-safe
 * `error` and `not_probed` (the failure is the scan's, not the file's).
 */
export function probeViaDispatcher(
  dispatcher: JobSubmitter,
  opts: { location: string; timeoutMs: number; logger?: Logger },
): ProbeFn {
  return async (input, parent, call) => {
    // Leave the VAST worker a second to assemble and publish its report; the scan's own deadline (call.timeoutMs) is
    // earlier still when its budget says so. The media job's deadline is this: the prober bounds its phases by it.
    const timeoutMs = Math.min(
      childTimeoutMs(parent, { marginMs: 1_000, fallbackMs: opts.timeoutMs, capMs: opts.timeoutMs }),
      call?.timeoutMs ?? Number.POSITIVE_INFINITY,
    );
    if (timeoutMs <= 0) return unprobed(input.url, "not probed: the scan ran out of time", true);
    // Unique per media file: one VAST job has many.
    const job = childJob(parent, `media-${randomUUID().slice(0, 8)}`, ScanKind.MEDIA, { case: "media", value: input });
    try {
      return await runChildJob(dispatcher, job, { report: "media", timeoutMs, location: servedLocationOf(parent.targeting?.country, splitLocations(opts.location)) });
    } catch (err) {
      if (!(err instanceof ChildJobError)) throw err;
      opts.logger?.warn({ job_id: parent.jobId, media_job_id: job.jobId, reason: err.failure.reason, err: err.message }, "media probe job failed");
      // A media worker that answers with an error failed itself (the prober reports what a file is inside a probe).
      // No worker took the job: nothing was downloaded. Otherwise a worker may have received up to the cap.
      const received = err.failure.reason === "no_worker" ? 0n : input.maxBytes;
      const probe = unprobed(input.url, err.failure.reason === "refused" ? `not probed: ${err.failure.message}` : "not probed: no media worker answered", true);
      probe.receivedBytes = received;
      return probe;
    }
  };
}
