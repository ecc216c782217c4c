import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { ScanJobSchema, ScanKind, type MediaInput, type MediaProbe, type ScanJob } from "@cva/contracts";
import { servedLocationOf, splitLocations, type Dispatcher, type Logger } from "@cva/platform";
import { unprobed } from "./media.ts";

/**
 * deps.probe for production: each media file becomes a SCAN_KIND_MEDIA job for a media-prober worker of this
 * location, bounded by the VAST job's own deadline. Failures come back as a MediaProbe with a client-safe `error`.
 */
export function probeViaDispatcher(
  dispatcher: Dispatcher,
  opts: { location: string; timeoutMs: number; logger?: Logger },
): (input: MediaInput, job: ScanJob) => Promise<MediaProbe> {
  return async (input, parent) => {
    const deadline = Number(parent.deadlineUnixMs);
    // Leave the VAST worker a second to assemble and publish its report.
    const left = deadline ? deadline - Date.now() - 1_000 : opts.timeoutMs;
    const timeoutMs = Math.min(opts.timeoutMs, left);
    if (timeoutMs <= 0) return unprobed(input.url, "not probed: the scan ran out of time", true);
    const job = create(ScanJobSchema, {
      // Unique per media file: the id is also the JetStream de-duplication id and part of the reply subject.
      jobId: `${parent.jobId}-media-${randomUUID().slice(0, 8)}`,
      kind: ScanKind.MEDIA,
      apiVersion: parent.apiVersion,
      specId: parent.specId,
      targeting: parent.targeting,
      input: { case: "media", value: input },
    });
    try {
      // Probed where the VAST job runs (a worker serving several locations serves the job's own).
      const location = servedLocationOf(parent.targeting?.country, splitLocations(opts.location));
      const result = await dispatcher.submit(job, { timeoutMs, location });
      if (result.outcome.case === "media") return result.outcome.value;
      // A media worker that answers with an error failed itself (the prober reports what a file is inside a probe).
      const message = result.outcome.case === "error" ? result.outcome.value.message : "no media result";
      return unprobed(input.url, `not probed: ${message}`, true);
    } catch (err) {
      opts.logger?.warn({ job_id: parent.jobId, media_job_id: job.jobId, err: err instanceof Error ? err.message : String(err) }, "media probe job failed");
      return unprobed(input.url, "not probed: no media worker answered", true);
    }
  };
}
