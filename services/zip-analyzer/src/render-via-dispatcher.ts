import { create } from "@bufbuild/protobuf";
import { ErrorType, ScanJobSchema, ScanKind, type Bundle, type ScanJob, type ScanJobResult, type TagReport } from "@cva/contracts";
import { servedLocationOf, splitLocations } from "@cva/platform";
import type { RenderBundle } from "./analyzer.ts";

/** The subset of the platform Dispatcher used here (structural, so tests can pass a fake). */
export interface JobSubmitter {
  submit(job: ScanJob, opts: { timeoutMs: number; location?: string }): Promise<ScanJobResult>;
}

/** The render could not be obtained (no tag worker, time-out, the tag scan failed): processing_error. */
export class RenderUnavailableError extends Error {
  override readonly name = "RenderUnavailableError";
  constructor(readonly clientMessage: string, detail?: string) {
    super(detail ?? clientMessage);
  }
}

export interface RenderViaDispatcherOptions {
  /** Location of this worker: the render runs beside it. */
  location: string;
  /** Render time-out when the zip job carries no deadline (tag render 30 s + browser start and transfer). */
  defaultTimeoutMs?: number;
  /** Kept back from the zip job's deadline for the zip's own work and the reply. */
  marginMs?: number;
}

/**
 * `render` for production: the bundle travels inside a SCAN_KIND_TAG job (NATS allows 64 MB payloads for this) to
 * a tag-scanner worker at the same location. The tag job gets its own id (`<zip job id>-render`): the dispatcher
 * de-duplicates and replies by job id, and the zip job's id is already in use by its own requester.
 */
export function renderViaDispatcher(dispatcher: JobSubmitter, options: RenderViaDispatcherOptions): RenderBundle {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 45_000;
  const marginMs = options.marginMs ?? 2_000;
  return async (bundle: Bundle, job: ScanJob): Promise<TagReport> => {
    const deadline = Number(job.deadlineUnixMs);
    const timeoutMs = deadline ? deadline - Date.now() - marginMs : defaultTimeoutMs;
    if (timeoutMs <= 0) throw new RenderUnavailableError("the scan ran out of time before the creative could be rendered");
    const tagJob = create(ScanJobSchema, {
      jobId: `${job.jobId}-render`,
      kind: ScanKind.TAG,
      apiVersion: job.apiVersion,
      specId: job.specId,
      targeting: job.targeting,
      // v3 zips: the tag scanner clicks the creative (its click tag) and captures the landing page.
      input: { case: "tag", value: { creative: { case: "bundle", value: bundle }, captureLandingPage: job.input.case === "zip" && job.input.value.captureLandingPage } },
    });
    let result: ScanJobResult;
    try {
      result = await dispatcher.submit(tagJob, { timeoutMs, location: servedLocationOf(job.targeting?.country, splitLocations(options.location)) });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // The dispatcher's own messages ("no worker resources: …", "the scan did not finish in time") are client-safe.
      const noWorker = err instanceof Error && err.name === "NoWorkerError";
      throw new RenderUnavailableError(noWorker ? message : "the creative could not be rendered", message);
    }
    const outcome = result.outcome;
    if (outcome.case === "tag") return outcome.value;
    if (outcome.case === "error") {
      // A payload error from the tag scanner about our own bundle is still the client's creative: pass it on as
      // a processing error (the zip itself was acceptable) with the tag scanner's client-safe message.
      const kind = outcome.value.type === ErrorType.PAYLOAD ? "the creative could not be rendered: " : "";
      throw new RenderUnavailableError(outcome.value.message ? kind + outcome.value.message : "the creative could not be rendered");
    }
    throw new RenderUnavailableError("the creative could not be rendered", `unexpected render outcome ${String(outcome.case)}`);
  };
}
