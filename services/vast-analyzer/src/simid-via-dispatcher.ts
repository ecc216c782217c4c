import { randomUUID } from "node:crypto";
import { ScanKind } from "@cva/contracts";
import { ChildJobError, childJob, childTimeoutMs, runChildJob, servedLocationOf, splitLocations, type JobSubmitter, type Logger } from "@cva/platform";
import { notRun, type SimidFn } from "./simid.ts";

/**
 * deps.simid for production: each SIMID creative becomes a SCAN_KIND_SIMID child job for a tag-scanner worker (its
 * SIMID player harness) at the VAST job's location, bounded by the VAST job's own deadline — the same path as the
 * media files' SCAN_KIND_MEDIA jobs (probe-via-dispatcher.ts). A failed job is a run not made, with why.
 */
export function simidViaDispatcher(dispatcher: JobSubmitter, opts: { location: string; timeoutMs: number; logger?: Logger }): SimidFn {
  return async (input, parent, call) => {
    const timeoutMs = Math.min(
      childTimeoutMs(parent, { marginMs: 1_000, fallbackMs: opts.timeoutMs, capMs: opts.timeoutMs }),
      call.timeoutMs,
    );
    if (timeoutMs <= 0) return notRun(input.url, 0, "not run: the scan ran out of time");
    const job = childJob(parent, `simid-${randomUUID().slice(0, 8)}`, ScanKind.SIMID, { case: "simid", value: input });
    try {
      return await runChildJob(dispatcher, job, { report: "simid", timeoutMs, location: servedLocationOf(parent.targeting?.country, splitLocations(opts.location)) });
    } catch (err) {
      if (!(err instanceof ChildJobError)) throw err;
      opts.logger?.warn({ job_id: parent.jobId, simid_job_id: job.jobId, reason: err.failure.reason, err: err.message }, "SIMID job failed");
      return notRun(input.url, 0, err.failure.reason === "refused" ? `not run: ${err.failure.message}` : "not run: no SIMID player worker answered");
    }
  };
}
