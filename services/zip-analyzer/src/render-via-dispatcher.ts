import { create } from "@bufbuild/protobuf";
import { ErrorType, ScanKind, TagInputSchema, type Bundle, type ScanJob, type TagReport } from "@cva/contracts";
import { ChildJobError, childJob, childTimeoutMs, runChildJob, servedLocationOf, splitLocations, type JobSubmitter } from "@cva/platform";
import type { RenderBundle } from "./analyzer.ts";

export type { JobSubmitter };

/** The render could not be obtained (no tag worker, time-out, the tag scan failed): processing_error. */
export class RenderUnavailableError extends Error {
  override readonly name = "RenderUnavailableError";
  constructor(readonly clientMessage: string, detail?: string) {
    super(detail ?? clientMessage);
  }
}

export interface RenderViaDispatcherOptions {
  /** Locations of this worker (SERVER_LOCATION): the render runs at the zip job's own. */
  location: string;
  /** Render time-out when the zip job carries no deadline (tag render 30 s + browser start and transfer). */
  defaultTimeoutMs?: number;
  /** Kept back from the zip job's deadline for the zip's own work and the reply. */
  marginMs?: number;
}

/**
 * `render` for production: the bundle travels inside a SCAN_KIND_TAG child job (NATS allows 64 MB payloads for this)
 * to a tag-scanner worker at the zip job's location (`<zip job id>-render`). v3 zips ask for the landing page.
 */
export function renderViaDispatcher(dispatcher: JobSubmitter, options: RenderViaDispatcherOptions): RenderBundle {
  const fallbackMs = options.defaultTimeoutMs ?? 45_000;
  const marginMs = options.marginMs ?? 2_000;
  return async (bundle: Bundle, job: ScanJob): Promise<TagReport> => {
    const timeoutMs = childTimeoutMs(job, { marginMs, fallbackMs });
    if (timeoutMs <= 0) throw new RenderUnavailableError("the scan ran out of time before the creative could be rendered");
    const captureLandingPage = job.input.case === "zip" && job.input.value.captureLandingPage;
    const allowedDomains = job.input.case === "zip" ? job.input.value.allowedDomains : [];
    const tagJob = childJob(job, "render", ScanKind.TAG, { case: "tag", value: create(TagInputSchema, { creative: { case: "bundle", value: bundle }, captureLandingPage, allowedDomains }) });
    try {
      return await runChildJob(dispatcher, tagJob, { report: "tag", timeoutMs, location: servedLocationOf(job.targeting?.country, splitLocations(options.location)) });
    } catch (err) {
      if (!(err instanceof ChildJobError)) throw err;
      const f = err.failure;
      // The dispatcher's "no worker resources: …" is client-safe; a tag scanner's refusal of our bundle is still the
      // client's creative (passed on as processing: the zip itself was acceptable), with its client-safe message.
      if (f.reason === "no_worker") throw new RenderUnavailableError(f.message);
      if (f.reason === "refused" && f.message) {
        throw new RenderUnavailableError(`${f.type === ErrorType.PAYLOAD ? "the creative could not be rendered: " : ""}${f.message}`);
      }
      throw new RenderUnavailableError("the creative could not be rendered", f.message);
    }
  };
}
