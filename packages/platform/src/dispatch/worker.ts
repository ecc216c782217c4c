import { randomUUID } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { jetstream, type JsMsg } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { ErrorType, ScanErrorSchema, ScanJobResultSchema, ScanJobSchema, WorkerHeartbeatSchema, type ScanJob, type ScanJobResult, type ScanKind } from "@cva/contracts";
import type { Logger } from "pino";
import { scanJobsCounter } from "../host/metrics.ts";
import { dispatchSettingsFromEnv, type DispatchSettings } from "./settings.ts";
import { ensureConsumer, ensureStream, manager } from "./stream.ts";
import { heartbeatSubject, kindName, STREAM } from "./subjects.ts";

export type JobOutcome = ScanJobResult["outcome"];

export interface JobContext {
  signal: AbortSignal;
  logger: Logger;
  deliveryCount: number;
}

export interface WorkerOptions {
  kind: ScanKind;
  location: string;
  slots: number;
  logger: Logger;
  settings?: DispatchSettings;
  workerId?: string;
  handle(job: ScanJob, ctx: JobContext): Promise<JobOutcome>;
}

export interface Worker {
  workerId: string;
  busy(): number;
  stop(): Promise<void>;
}

// Pulls jobs of one kind+location from the shared durable consumer, never more than it has free slots, so load
// spreads over however many replicas run. Each job is acked only after its result is published; a worker that
// dies mid-job leaves it unacked and JetStream hands it to another worker after ack_wait.
export async function startWorker(nc: NatsConnection, opts: WorkerOptions): Promise<Worker> {
  const settings = opts.settings ?? dispatchSettingsFromEnv();
  const workerId = opts.workerId ?? `${kindName(opts.kind)}-${opts.location}-${randomUUID().slice(0, 8)}`;
  const log = opts.logger.child({ worker_id: workerId });
  const jsm = await manager(nc);
  await ensureStream(jsm);
  const durable = await ensureConsumer(jsm, opts.kind, opts.location, settings);
  const consumer = await jetstream(nc).consumers.get(STREAM, durable);

  let busy = 0;
  let stopping = false;
  const inflight = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  const slotFreed = () => new Promise<void>((resolve) => (wake = resolve));

  const beat = (slots = opts.slots) =>
    nc.publish(
      heartbeatSubject(opts.kind, opts.location),
      toBinary(WorkerHeartbeatSchema, create(WorkerHeartbeatSchema, { workerId, kind: opts.kind, location: opts.location, slots, busy, sentUnixMs: BigInt(Date.now()) })),
    );
  beat();
  const heartbeat = setInterval(() => beat(), settings.heartbeatEveryMs);

  async function process(m: JsMsg): Promise<void> {
    let job: ScanJob;
    try {
      job = fromBinary(ScanJobSchema, m.data);
    } catch {
      log.error({ seq: m.seq }, "undecodable job dropped");
      m.term("undecodable");
      return;
    }
    const jlog = log.child({ job_id: job.jobId });
    const deadline = Number(job.deadlineUnixMs);
    if (deadline && Date.now() > deadline) {
      jlog.warn("job past its deadline dropped");
      m.ack();
      return;
    }
    const ac = new AbortController();
    const deadlineTimer = deadline ? setTimeout(() => ac.abort(new Error("deadline")), Math.max(0, deadline - Date.now())) : undefined;
    // Tells JetStream we are alive so a long scan is not redelivered while it is still running.
    const progress = setInterval(() => m.working(), Math.max(250, Math.floor(settings.ackWaitMs / 3)));
    const started = Date.now();
    let outcome: JobOutcome;
    try {
      outcome = await opts.handle(job, { signal: ac.signal, logger: jlog, deliveryCount: m.info.deliveryCount });
    } catch (err) {
      jlog.error({ err }, "scan failed");
      outcome = { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PROCESSING, message: "the scan could not be completed" }) };
    } finally {
      clearInterval(progress);
      clearTimeout(deadlineTimer);
    }
    scanJobsCounter.inc({ kind: kindName(opts.kind), outcome: outcome.case ?? "none" });
    jlog.info({ outcome: outcome.case, ms: Date.now() - started }, "job done");
    if (job.replySubject) {
      let payload = toBinary(ScanJobResultSchema, create(ScanJobResultSchema, { jobId: job.jobId, workerId, outcome }));
      try {
        nc.publish(job.replySubject, payload);
      } catch (err) {
        jlog.error({ err, bytes: payload.length }, "result could not be published");
        payload = toBinary(
          ScanJobResultSchema,
          create(ScanJobResultSchema, { jobId: job.jobId, workerId, outcome: { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PROCESSING, message: "the report is too large to deliver" }) } }),
        );
        nc.publish(job.replySubject, payload);
      }
    }
    m.ack();
  }

  const loop = (async () => {
    while (!stopping) {
      const free = opts.slots - busy;
      if (free <= 0) {
        await slotFreed();
        continue;
      }
      try {
        const batch = await consumer.fetch({ max_messages: free, expires: 2000 });
        for await (const m of batch) {
          busy++;
          beat();
          const p = process(m).finally(() => {
            busy--;
            inflight.delete(p);
            wake?.();
          });
          inflight.add(p);
          if (stopping) break;
        }
      } catch (err) {
        if (stopping || nc.isClosed()) break;
        log.warn({ err: (err as Error).message }, "fetch failed; retrying");
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();

  log.info({ kind: kindName(opts.kind), location: opts.location, slots: opts.slots }, "worker started");
  return {
    workerId,
    busy: () => busy,
    async stop() {
      stopping = true;
      clearInterval(heartbeat);
      // Slots 0 tells requesters at once that this worker takes nothing more.
      if (!nc.isClosed()) beat(0);
      wake?.();
      await Promise.race([loop, new Promise((r) => setTimeout(r, 2500))]);
      await Promise.allSettled([...inflight]);
    },
  };
}
