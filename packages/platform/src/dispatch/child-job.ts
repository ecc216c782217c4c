import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ErrorType, ScanJobSchema, type ScanJob, type ScanJobResult, type ScanKind } from "@cva/contracts";
import type { ReportCase, ReportOf } from "./scanner-process.ts";

// "Submit a job to the queue and unwrap its outcome" — the edge's scan job, the zip analyzer's render (a tag job) and
// the VAST analyzer's media probes (media jobs) all do it the same way; this is the one typed implementation. Every
// way it can fail is one ChildJobError with a reason the caller maps to its own answer.

/** The slice of the Dispatcher needed (structural, so tests and the edge's fakes fit). */
export interface JobSubmitter {
  submit(job: ScanJob, opts: { timeoutMs: number; location?: string }): Promise<ScanJobResult>;
}

export type ChildJobFailure =
  /** No live worker of that kind and location, or all saturated (NoWorkerError): the dispatcher's message is client-safe. */
  | { reason: "no_worker"; message: string; retryAfterSeconds?: number }
  /** Accepted but no result in time, or the dispatch itself failed; `message` is for logs. */
  | { reason: "failed"; message: string }
  /** The worker answered with an error outcome; its message is written for clients by our scanners. */
  | { reason: "refused"; type: ErrorType; message: string }
  /** The worker answered with another kind of report than asked for (a bug). */
  | { reason: "wrong_report"; message: string };

export class ChildJobError extends Error {
  override readonly name = "ChildJobError";
  constructor(readonly failure: ChildJobFailure) {
    super(failure.message);
  }
  /** A refusal of the client's input (PAYLOAD), as opposed to a failure of ours. */
  get isPayload(): boolean {
    return this.failure.reason === "refused" && this.failure.type === ErrorType.PAYLOAD;
  }
}

export interface RunChildJobOptions<K extends ReportCase> {
  /** The outcome case a successful job answers with. */
  report: K;
  timeoutMs: number;
  location?: string;
}

/** Submits `job` and returns its report; every failure is a ChildJobError. */
export async function runChildJob<K extends ReportCase>(submitter: JobSubmitter, job: ScanJob, opts: RunChildJobOptions<K>): Promise<ReportOf<K>> {
  if (opts.timeoutMs <= 0) throw new ChildJobError({ reason: "failed", message: "the scan ran out of time before the job could be submitted" });
  let result: ScanJobResult;
  try {
    result = await submitter.submit(job, { timeoutMs: opts.timeoutMs, location: opts.location });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Matched by name: a second copy of the module (or a test fake) still counts.
    if (err instanceof Error && err.name === "NoWorkerError") {
      const hint = (err as { retryAfterSeconds?: unknown }).retryAfterSeconds;
      throw new ChildJobError({ reason: "no_worker", message, retryAfterSeconds: typeof hint === "number" && hint > 0 ? hint : undefined });
    }
    throw new ChildJobError({ reason: "failed", message });
  }
  const outcome = result.outcome;
  if (outcome.case === "error") throw new ChildJobError({ reason: "refused", type: outcome.value.type, message: outcome.value.message });
  if (outcome.case !== opts.report) throw new ChildJobError({ reason: "wrong_report", message: `expected a ${opts.report} report, got ${String(outcome.case)}` });
  return outcome.value as ReportOf<K>;
}

/**
 * A job on behalf of `parent`: its own id (`<parent id>-<suffix>`: the id is the JetStream de-duplication key and part
 * of the reply subject, and the parent's is in use by its own requester), the parent's API version, spec set and
 * targeting (so the child runs where and as the parent does).
 */
export function childJob(parent: ScanJob, suffix: string, kind: ScanKind, input: MessageInitShape<typeof ScanJobSchema>["input"]): ScanJob {
  return create(ScanJobSchema, {
    jobId: `${parent.jobId}-${suffix}`,
    kind,
    apiVersion: parent.apiVersion,
    specId: parent.specId,
    targeting: parent.targeting,
    input,
  });
}

/**
 * How long a child may take: the parent's deadline less `marginMs` (for the parent's own work and reply), at most
 * `capMs`; `fallbackMs` when the parent has no deadline. Zero or less: no time left (runChildJob refuses to submit).
 */
export function childTimeoutMs(parent: ScanJob, opts: { marginMs: number; fallbackMs: number; capMs?: number }): number {
  const deadline = Number(parent.deadlineUnixMs);
  const left = deadline ? deadline - Date.now() - opts.marginMs : opts.fallbackMs;
  return Math.min(left, opts.capMs ?? Number.POSITIVE_INFINITY);
}
