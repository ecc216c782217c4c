import { randomUUID } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { jetstream, type JsMsg } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { ErrorType, ScanErrorSchema, ScanJobResultSchema, ScanJobSchema, WorkerHeartbeatSchema, type ScanJob, type ScanJobResult, type ScanKind } from "@cva/contracts";
import type { Logger } from "pino";
import { scanJobsCounter } from "../host/metrics.ts";
import { dispatchSettingsFromEnv, type DispatchSettings } from "./settings.ts";
import { ensureConsumer, ensureStream, manager } from "./stream.ts";
import { splitLocations } from "../nats/locations.ts";
import { createSlotGate, type SlotGate } from "./slot-gate.ts";
import { BucketFullError, createIfAbsent } from "./kv-write.ts";
import { resultKeySubject } from "./results.ts";
import { heartbeatSubject, kindName, requesterOfResultSubject } from "./subjects.ts";
import { STREAM } from "../nats/names.ts";
import { NATS_MAX_PAYLOAD } from "../nats/server.ts";

// Room for the KV write's headers within NATS's payload ceiling.
const MAX_RESULT_BYTES = NATS_MAX_PAYLOAD - 64 * 1024;
// However late a job finished, its result write is retried at least this long (a NATS node failing over).
const RESULT_WRITE_MIN_MS = 20_000;

export type JobOutcome = ScanJobResult["outcome"];

// The error behind a PROCESSING outcome that a handler produced from a throw, kept for the job's one log line.
const causes = new WeakMap<object, unknown>();

/** An error outcome standing for `err` (which never reaches the requester): the worker's "job done" line logs it. */
export function failedOutcome(message: string, err: unknown): JobOutcome {
  const value = create(ScanErrorSchema, { type: ErrorType.PROCESSING, message });
  causes.set(value, err);
  return { case: "error", value };
}

export interface JobContext {
  signal: AbortSignal;
  logger: Logger;
  deliveryCount: number;
  /** The location the job was pulled for (one of the worker's). */
  location: string;
}

export interface WorkerOptions {
  kind: ScanKind;
  /** The location served, or several comma-separated ("usa,nld"): one pull per location, one set of slots. */
  location: string;
  slots: number;
  logger: Logger;
  settings?: DispatchSettings;
  workerId?: string;
  /**
   * Slots shared with other workers of the same process (one capacity for several kinds, e.g. the media prober's
   * video and audio files); by default the worker's own gate of `slots`.
   */
  gate?: SlotGate;
  /**
   * Take a slot when a job arrives instead of when its pull is issued; a pull is still issued only while a slot is
   * free. For workers whose gate is shared by several pulls (kinds × locations): a pull waiting on a quiet location
   * otherwise holds a slot until it expires, and a job of another location waits that long in the queue (the media
   * prober's video and audio files, four pulls on one gate: 194–863 ms between dispatch and the job's start, 2026-11-27).
   * The price: when several pulls answer at once, the jobs beyond the free slots wait here for one (kept alive), at
   * most one per pull, instead of in the queue for another replica.
   */
  slotOnArrival?: boolean;
  handle(job: ScanJob, ctx: JobContext): Promise<JobOutcome>;
}

export interface Worker {
  workerId: string;
  busy(): number;
  stop(): Promise<void>;
}

// Pulls jobs of one kind+location from the shared durable consumer, never more than it has free slots, so load
// spreads over however many replicas run. Each job is acked only after its result is stored (results.ts); a worker that
// dies mid-job leaves it unacked and JetStream hands it to another worker after ack_wait.
export async function startWorker(nc: NatsConnection, opts: WorkerOptions): Promise<Worker> {
  const settings = opts.settings ?? dispatchSettingsFromEnv();
  const locations = splitLocations(opts.location);
  const workerId = opts.workerId ?? `${kindName(opts.kind)}-${locations.join("+")}-${randomUUID().slice(0, 8)}`;
  const log = opts.logger.child({ worker_id: workerId });
  const jsm = await manager(nc);
  await ensureStream(jsm);
  const js = jetstream(nc);
  const pulls = await Promise.all(
    locations.map(async (location) => ({ location, consumer: await js.consumers.get(STREAM, await ensureConsumer(jsm, opts.kind, location, settings)) })),
  );

  // One set of slots for every location: a slot is taken before a pull is issued (so two locations can never hand
  // this worker more jobs than it has slots) and handed over in arrival order (so no location starves the other).
  const gate = opts.gate ?? createSlotGate(opts.slots);
  // A waiting pull holds a slot; with several locations it is renewed more often so that a job of another location
  // waits at most this long when every other slot is busy.
  const expires = locations.length > 1 ? 1000 : 2000;
  let busy = 0;
  let stopping = false;
  const inflight = new Set<Promise<void>>();

  // One heartbeat per location: requesters count live workers and slots per kind and location.
  const beat = (slots = opts.slots) => {
    for (const location of locations) {
      nc.publish(
        heartbeatSubject(opts.kind, location),
        toBinary(WorkerHeartbeatSchema, create(WorkerHeartbeatSchema, { workerId, kind: opts.kind, location, slots, busy, sentUnixMs: BigInt(Date.now()) })),
      );
    }
  };
  beat();
  const heartbeat = setInterval(() => beat(), settings.heartbeatEveryMs);

  async function process(m: JsMsg, location: string): Promise<void> {
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
    // Tells JetStream we are alive so a long scan is not redelivered while it is still running — until the ack, the
    // result's durable write included.
    const progress = setInterval(() => m.working(), Math.max(250, Math.floor(settings.ackWaitMs / 3)));
    const started = Date.now();
    let outcome: JobOutcome;
    try {
      try {
        outcome = await opts.handle(job, { signal: ac.signal, logger: jlog, deliveryCount: m.info.deliveryCount, location });
      } catch (err) {
        outcome = failedOutcome("the scan could not be completed", err);
      } finally {
        clearTimeout(deadlineTimer);
      }
      scanJobsCounter.inc({ kind: kindName(opts.kind), outcome: outcome.case ?? "none" });
      // The job's one log line, a failed one included: what the requester was told, and the error behind it.
      if (outcome.case === "error") {
        const cause = causes.get(outcome.value);
        const fields = { outcome: "error", error_type: ErrorType[outcome.value.type], error_message: outcome.value.message, ms: Date.now() - started, location };
        if (cause !== undefined) jlog.error({ ...fields, err: cause }, "job done");
        else jlog.info(fields, "job done");
      } else {
        jlog.info({ outcome: outcome.case, ms: Date.now() - started, location }, "job done");
      }
      if (job.replySubject && !(await deliver(job, outcome, jlog, deadline))) {
        // Not stored: another delivery of the job will store its result.
        m.nak(Math.min(settings.ackWaitMs, 5000));
        return;
      }
    } finally {
      clearInterval(progress);
    }
    m.ack();
  }

  // The result is stored in cva_results before the job is acked, so it outlives a reconnect or restart of the
  // requester; the first stored result of a job stays (a later delivery's is not written over it). Then the core
  // NATS notification, the requester's fast path. False when the result could not be stored by the deadline.
  async function deliver(job: ScanJob, outcome: JobOutcome, jlog: Logger, deadline: number): Promise<boolean> {
    let payload = toBinary(ScanJobResultSchema, create(ScanJobResultSchema, { jobId: job.jobId, workerId, outcome }));
    if (payload.length > MAX_RESULT_BYTES) {
      jlog.error({ bytes: payload.length }, "result too large to deliver");
      payload = toBinary(
        ScanJobResultSchema,
        create(ScanJobResultSchema, { jobId: job.jobId, workerId, outcome: { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PROCESSING, message: "the report is too large to deliver" }) } }),
      );
    }
    const requester = requesterOfResultSubject(job.replySubject);
    let stored = false;
    if (requester) {
      try {
        const outcome = await createIfAbsent(js, resultKeySubject(kindName(opts.kind), requester, job.jobId), payload, {
          msgID: randomUUID(),
          // Past the job's deadline the requester has given up, but a retry of the client may still look it up.
          deadline: Math.max(deadline || 0, Date.now() + RESULT_WRITE_MIN_MS),
        });
        if (outcome === "exists") jlog.info("result already stored by an earlier delivery");
        stored = true;
      } catch (err) {
        if (err instanceof BucketFullError) {
          // A full bucket refuses new entries until old ones expire (results.ts): another delivery would scan the job
          // again only to be refused too. The notification below is all the requester gets; the operator must raise
          // SCAN_RESULTS_MAX_BYTES.
          jlog.error({ err: err.message }, "results bucket full: result delivered by notification only");
          stored = true;
        } else {
          jlog.error({ err }, "result could not be stored");
        }
      }
    } else {
      jlog.warn({ reply_subject: job.replySubject }, "reply subject names no requester; result not stored");
      stored = true;
    }
    try {
      nc.publish(job.replySubject, payload);
    } catch (err) {
      jlog.warn({ err }, "result notification could not be published");
    }
    return stored;
  }

  // A job pulled while no slot was held for it (slotOnArrival): it takes one, waiting while another pull's job has the
  // last, kept alive meanwhile. Given back to the queue when the worker stops before it got one.
  async function runOnArrival(m: JsMsg, location: string): Promise<void> {
    const alive = setInterval(() => m.working(), Math.max(250, Math.floor(settings.ackWaitMs / 3)));
    try {
      await gate.acquire();
    } finally {
      clearInterval(alive);
    }
    if (stopping) {
      m.nak();
      return;
    }
    busy++;
    beat();
    try {
      await process(m, location);
    } finally {
      busy--;
      gate.release();
    }
  }

  async function pullOnArrival(location: string, consumer: (typeof pulls)[number]["consumer"]): Promise<void> {
    while (!stopping) {
      await gate.whenFree();
      if (stopping) break;
      let m: JsMsg | null;
      try {
        m = await consumer.next({ expires });
      } catch (err) {
        if (stopping || nc.isClosed()) break;
        log.warn({ err: (err as Error).message, location }, "fetch failed; retrying");
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!m) continue;
      // Takes its slot synchronously when one is free, before this loop asks whenFree again.
      const p = runOnArrival(m, location).finally(() => inflight.delete(p));
      inflight.add(p);
    }
  }

  async function pullLoop(location: string, consumer: (typeof pulls)[number]["consumer"]): Promise<void> {
    if (opts.slotOnArrival) return pullOnArrival(location, consumer);
    while (!stopping) {
      await gate.acquire();
      if (stopping) {
        gate.release();
        break;
      }
      let m: JsMsg | null;
      try {
        m = await consumer.next({ expires });
      } catch (err) {
        gate.release();
        if (stopping || nc.isClosed()) break;
        log.warn({ err: (err as Error).message, location }, "fetch failed; retrying");
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!m) {
        gate.release();
        continue;
      }
      busy++;
      beat();
      const p = process(m, location).finally(() => {
        busy--;
        gate.release();
        inflight.delete(p);
      });
      inflight.add(p);
    }
  }
  const loops = Promise.all(pulls.map((p) => pullLoop(p.location, p.consumer)));

  log.info({ kind: kindName(opts.kind), locations, slots: opts.slots }, "worker started");
  return {
    workerId,
    busy: () => busy,
    async stop() {
      stopping = true;
      clearInterval(heartbeat);
      // Slots 0 tells requesters at once that this worker takes nothing more.
      if (!nc.isClosed()) beat(0);
      gate.close();
      await Promise.race([loops, new Promise((r) => setTimeout(r, 2500))]);
      await Promise.allSettled([...inflight]);
    },
  };
}
