import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { ErrorType, ScanErrorSchema, type ScanJob, type ScanKind } from "@cva/contracts";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { ServiceCredentials } from "../credentials/service-credentials.ts";
import { startServiceHost } from "../host/service-host.ts";
import { servedLocationOf, splitLocations } from "../nats/locations.ts";
import { failedOutcome, startWorker, type JobOutcome } from "./worker.ts";

/**
 * Scans in progress across a scanner's queue worker and its direct RPC, so that both respect one capacity (the
 * browser pool, ffmpeg's cores, the configured *_SLOTS).
 */
export interface Slots {
  /** For direct calls: false when every slot is busy. */
  tryAcquire(): boolean;
  /** For the queue worker, which only pulls as many jobs as it has free slots and so is never refused. */
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

/**
 * One job → its outcome: the scanner's own work. The job's problems (a refused input, an unknown spec) are error
 * outcomes (PAYLOAD: the client's fault; PROCESSING: retryable, not charged); only bugs and aborts throw.
 */
export type RunJob = (job: ScanJob, ctx: RunContext) => Promise<JobOutcome>;

export interface RunContext {
  signal: AbortSignal;
  logger: Logger;
  /** The location the job runs for: where its child jobs go, what its report's meta.server_location says. */
  location: string;
}

/** The outcome cases that carry a report, and the report of each. */
export type ReportCase = Exclude<JobOutcome["case"], "error" | undefined>;
export type ReportOf<K extends ReportCase> = Extract<JobOutcome, { case: K }>["value"];
export type InputCase = Exclude<ScanJob["input"]["case"], undefined>;

export interface DirectCallOptions<K extends ReportCase> {
  /** The outcome case a successful job answers with. */
  report: K;
  /** When set, a job whose input is not this case is refused before it takes a slot: "job.<expect> is required". */
  expect?: InputCase;
}

/**
 * A direct (synchronous) scan for an RPC implementation: the job from the request (possibly absent) and the call's
 * signal in, the report out, everything else as a ConnectError a client may see.
 */
export type DirectRunner = <K extends ReportCase>(job: ScanJob | undefined, signal: AbortSignal, opts: DirectCallOptions<K>) => Promise<ReportOf<K>>;

export interface DirectRunnerOptions {
  /** What the busy message calls the service: "no worker resources: the <label> is busy". */
  label: string;
  slots: Slots;
  run: RunJob;
  logger: Logger;
  /** The generic INTERNAL message for a job that threw; the error itself only goes to the log. */
  failureMessage: string;
  /** The locations served (a SERVER_LOCATION value); a direct call runs for its targeting.country if served. */
  location?: string;
}

/**
 * Direct calls share the queue worker's slots, but are refused with RESOURCE_EXHAUSTED at once when all are busy
 * rather than queued: the caller can try another replica. Outcome errors keep their client-safe messages
 * (PAYLOAD → INVALID_ARGUMENT, PROCESSING → UNAVAILABLE); a throw never shows its internals.
 */
export function createDirectRunner(opts: DirectRunnerOptions): DirectRunner {
  return async <K extends ReportCase>(job: ScanJob | undefined, signal: AbortSignal, call: DirectCallOptions<K>): Promise<ReportOf<K>> => {
    if (!job) throw new ConnectError("job is required", Code.InvalidArgument);
    if (call.expect && job.input.case !== call.expect) throw new ConnectError(`job.${call.expect} is required`, Code.InvalidArgument);
    if (!opts.slots.tryAcquire()) throw new ConnectError(`no worker resources: the ${opts.label} is busy`, Code.ResourceExhausted);
    let outcome: JobOutcome;
    const location = servedLocationOf(job.targeting?.country, splitLocations(opts.location ?? "usa"));
    try {
      outcome = stampServerLocation(await opts.run(job, { signal, logger: opts.logger.child({ job_id: job.jobId }), location }), location);
    } catch (err) {
      // The caught error stays the cause (for this process's logs); the caller sees only the generic message.
      if (signal.aborted) throw new ConnectError("cancelled", Code.Canceled, undefined, undefined, err);
      opts.logger.error({ job_id: job.jobId, err }, "direct scan failed");
      throw new ConnectError(opts.failureMessage, Code.Internal, undefined, undefined, err);
    } finally {
      opts.slots.release();
    }
    if (outcome.case === "error") {
      const code = outcome.value.type === ErrorType.PAYLOAD ? Code.InvalidArgument : Code.Unavailable;
      throw new ConnectError(outcome.value.message, code);
    }
    if (outcome.case !== call.report) throw new ConnectError(opts.failureMessage, Code.Unavailable);
    return outcome.value as ReportOf<K>;
  };
}

/**
 * meta.server_location is where the job ran: the location it was routed to. A scanner serving several locations
 * knows its SERVER_LOCATION list, not which of them a job came for, so the shared worker sets it for every scanner.
 */
export function stampServerLocation(outcome: JobOutcome, location: string): JobOutcome {
  const meta =
    outcome.case === "tag" || outcome.case === "vast" ? outcome.value.meta : outcome.case === "zip" ? outcome.value.render?.meta : undefined;
  if (meta) meta.serverLocation = location;
  return outcome;
}

export interface ScannerProcessOptions {
  /** The process's name ("tag-scanner"), for the service host. */
  name: string;
  /** What client messages call it; defaults to the name with spaces ("tag scanner"). */
  label?: string;
  nc: NatsConnection;
  logger: Logger;
  kind: ScanKind;
  /** The location served, or several comma-separated (SERVER_LOCATION): one queue pull per location. */
  location: string;
  /** Jobs at a time, queue and direct calls together. */
  slots: number;
  port: number;
  metricsPort: number;
  /** Address of the gRPC and metrics listeners; loopback by default. */
  host?: string;
  /** What the direct RPCs accept (see startServiceHost). */
  credentials: ServiceCredentials;
  /** The proto service registered (e.g. "cva.tagscanner.v1.TagScannerService"), for grpc.health.v1. */
  serviceName: string;
  run: RunJob;
  /** The client-safe message for a job that threw: INTERNAL for a direct call, PROCESSING error for a queue job. */
  failureMessage: string;
  /** The queue answer for a job that threw, when it is not failureMessage. */
  jobFailureMessage?: string;
  register(router: ConnectRouter, direct: DirectRunner): void;
  /** Health; by default "serving while connected to NATS". */
  ready?: () => Promise<boolean>;
  /** Closes the service's own dependencies (browser pool, dispatcher) after the worker and host have stopped. */
  onClose?: () => Promise<void>;
}

/** What every scanner's start function takes besides its own dependencies and limits. */
export type ScannerProcessBase = Pick<ScannerProcessOptions, "nc" | "logger" | "location" | "port" | "metricsPort" | "host" | "credentials">;

export interface ScannerProcess {
  port: number;
  metricsPort: number;
  slots: Slots;
  close(): Promise<void>;
}

/**
 * A scanner as a process minus environment parsing and its own dependencies: the queue worker for its kind and
 * location, and the gRPC host serving its direct RPC, sharing one run function and one set of slots.
 */
export async function startScannerProcess(opts: ScannerProcessOptions): Promise<ScannerProcess> {
  const { nc, logger, run } = opts;
  const slots = createSlots(opts.slots);
  const direct = createDirectRunner({
    label: opts.label ?? opts.name.replace(/-/g, " "),
    slots,
    run,
    logger,
    failureMessage: opts.failureMessage,
    location: opts.location,
  });
  const jobFailure = opts.jobFailureMessage ?? opts.failureMessage;
  const worker = await startWorker(nc, {
    kind: opts.kind,
    location: opts.location,
    slots: opts.slots,
    logger,
    async handle(job, ctx) {
      slots.acquire();
      try {
        return stampServerLocation(await run(job, { signal: ctx.signal, logger: ctx.logger, location: ctx.location }), ctx.location);
      } catch (err) {
        // Logged once, in the worker's "job done" line.
        return failedOutcome(jobFailure, err);
      } finally {
        slots.release();
      }
    },
  });
  const host = await startServiceHost({
    name: opts.name,
    port: opts.port,
    metricsPort: opts.metricsPort,
    host: opts.host,
    credentials: opts.credentials,
    logger,
    serviceNames: [opts.serviceName],
    register: (router) => opts.register(router, direct),
    ready: opts.ready ?? (async () => !nc.isClosed()),
  });
  return {
    port: host.port,
    metricsPort: host.metricsPort,
    slots,
    async close() {
      await worker.stop();
      await host.close();
      await opts.onClose?.();
    },
  };
}
