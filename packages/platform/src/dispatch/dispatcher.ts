import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { jetstream, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { ScanJobResultSchema, ScanJobSchema, WorkerHeartbeatSchema, type ScanJob, type ScanJobResult, type ScanKind, type WorkerHeartbeat } from "@cva/contracts";
import type { Logger } from "pino";
import { NoWorkerError, ScanFailedError } from "./errors.ts";
import { splitLocations } from "../nats/locations.ts";
import { dispatchSettingsFromEnv, type DispatchSettings } from "./settings.ts";
import { isPermissionViolation, natsUserOf } from "../nats/connect.ts";
import { ensureConsumer, ensureStream, manager } from "./stream.ts";
import { jetStreamReplicas } from "../nats/replicas.ts";
import { ensureResultBucket, isJobIdToken, readResult, resultStoreSettingsFromEnv, type ResultStoreSettings } from "./results.ts";
import { HEARTBEAT_WILDCARD, jobSubject, kindName, maxDeliveriesAdvisory, resultSubject } from "./subjects.ts";
import { STREAM } from "../nats/names.ts";

// How long a job waits for its notification before its stored result is read: notifications are lost only when a
// NATS node dies or a connection drops, so this is the delay such a fault costs at most.
const RESULT_POLL_MS = 3000;
const ALL_KINDS = ["tag", "zip", "vast", "media", "video", "image", "audio", "simid"];
// How long a submission rides out a NATS failover (a node's clients reconnecting elsewhere, a stream electing a new
// leader, a restarted node whose JetStream is not up yet) before the scan fails.
const FAILOVER_RETRY_MS = 15_000;

async function retryTransient<T>(op: () => Promise<T>, until: number): Promise<T> {
  for (let wait = 100; ; wait = Math.min(1000, wait * 2)) {
    try {
      return await op();
    } catch (err) {
      if (isPermissionViolation(err) || Date.now() + wait > until) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

export interface SubmitOptions {
  timeoutMs: number;
  // Worker location; defaults to the job's targeting.country, then the dispatcher's default location.
  location?: string;
}

export interface Dispatcher {
  submit(job: ScanJob, opts: SubmitOptions): Promise<ScanJobResult>;
  /**
   * The stored result of a job this requester (its NATS user, shared by its replicas) submitted, or undefined while
   * there is none: finds a result after a restart of the process that asked. Without `kind`, every kind is looked up.
   */
  resultOf(jobId: string, kind?: ScanKind): Promise<ScanJobResult | undefined>;
  liveWorkers(kind: ScanKind, location?: string): WorkerHeartbeat[];
  close(): Promise<void>;
}

// The requester's side of the work queue. It knows who is alive from worker heartbeats (no per-request probe), so
// "no worker resources" is answered at once, and it bounds the queue so a saturated fleet is refused rather than
// letting requests wait out their time-outs.
//
// Results: the worker stores each in cva_results before it acks (results.ts) and then notifies on core NATS. The
// notification carries the same bytes as the stored entry and is the fast path; a notification lost to a reconnect
// or a dying NATS node is made up for by reading the entry — after every reconnect of this client, for jobs waiting
// longer than RESULT_POLL_MS, and once more at the time-out.
export async function createDispatcher(
  nc: NatsConnection,
  opts: { logger: Logger; defaultLocation?: string; settings?: DispatchSettings; resultStore?: ResultStoreSettings },
): Promise<Dispatcher> {
  const settings = opts.settings ?? dispatchSettingsFromEnv();
  const jsm: JetStreamManager = await manager(nc);
  const replicas = jetStreamReplicas(nc);
  await ensureStream(jsm, { replicas });
  await ensureResultBucket(jsm, replicas, opts.resultStore ?? resultStoreSettingsFromEnv(), nc.info?.version);
  const js = jetstream(nc);
  const waiting = new Map<string, { kind: string; since: number; resolve: (r: ScanJobResult) => void }>();
  const seen = new Map<string, { hb: WorkerHeartbeat; at: number }>();
  const consumers = new Map<string, Promise<string>>();
  const bySeq = new Map<number, (err: Error) => void>();
  const requester = natsUserOf(nc) ?? "anonymous";
  // A SERVER_LOCATION list routes to its first location.
  const defaultLocation = splitLocations(opts.defaultLocation || "usa")[0]!;

  const hbSub = nc.subscribe(HEARTBEAT_WILDCARD, {
    callback(err, msg) {
      if (err) return;
      try {
        const hb = fromBinary(WorkerHeartbeatSchema, msg.data);
        // A worker serving several locations beats once per location, with the same id.
        const key = `${hb.workerId}@${hb.location}`;
        if (hb.slots === 0) seen.delete(key);
        else seen.set(key, { hb, at: Date.now() });
      } catch {
        /* not ours */
      }
    },
  });
  // A job that crashed its worker max_deliver times is given up by JetStream; fail its requester now rather than
  // at the time-out, and remove the poison job.
  const advisorySub = nc.subscribe(maxDeliveriesAdvisory("*"), {
    callback(err, msg) {
      if (err) return;
      try {
        const seq = Number(JSON.parse(new TextDecoder().decode(msg.data)).stream_seq);
        bySeq.get(seq)?.(new ScanFailedError(`the scan failed on ${settings.maxDeliver} workers in a row`));
        void jsm.streams.deleteMessage(STREAM, seq).catch(() => {});
      } catch {
        /* ignore malformed advisories */
      }
    },
  });

  async function stored(kind: string, jobId: string): Promise<ScanJobResult | undefined> {
    const data = await readResult(jsm, kind, requester, jobId);
    return data ? fromBinary(ScanJobResultSchema, data) : undefined;
  }
  const lookUp = (jobId: string) => {
    const w = waiting.get(jobId);
    if (!w) return;
    stored(w.kind, jobId).then(
      (r) => r && w.resolve(r),
      (err) => opts.logger.debug({ err, job_id: jobId }, "stored result not readable yet"),
    );
  };
  const poll = setInterval(() => {
    const now = Date.now();
    for (const [jobId, w] of waiting) if (now - w.since >= RESULT_POLL_MS) lookUp(jobId);
  }, RESULT_POLL_MS);
  poll.unref();
  void (async () => {
    for await (const st of nc.status()) if (st.type === "reconnect") for (const jobId of waiting.keys()) lookUp(jobId);
  })().catch(() => {});

  function liveWorkers(kind: ScanKind, location?: string): WorkerHeartbeat[] {
    const now = Date.now();
    const out: WorkerHeartbeat[] = [];
    const ids = new Set<string>();
    for (const [key, { hb, at }] of seen) {
      if (now - at > settings.heartbeatTtlMs) {
        seen.delete(key);
        continue;
      }
      if (hb.kind !== kind || (location !== undefined && hb.location !== location)) continue;
      // Across locations a worker serving several counts once.
      if (ids.has(hb.workerId)) continue;
      ids.add(hb.workerId);
      out.push(hb);
    }
    return out;
  }

  function consumerFor(kind: ScanKind, location: string): Promise<string> {
    const key = `${kind}.${location}`;
    let p = consumers.get(key);
    if (!p) {
      p = ensureConsumer(jsm, kind, location, settings);
      p.catch(() => consumers.delete(key));
      consumers.set(key, p);
    }
    return p;
  }

  async function submit(job: ScanJob, sopts: SubmitOptions): Promise<ScanJobResult> {
    if (!isJobIdToken(job.jobId)) throw new Error(`job id ${JSON.stringify(job.jobId.slice(0, 60))} is not a subject token`);
    const location = sopts.location || job.targeting?.country || defaultLocation;
    const kind = job.kind;
    const live = liveWorkers(kind, location);
    if (live.length === 0) {
      throw new NoWorkerError(`no worker resources: no ${kindName(kind)} worker is running for location ${location}`);
    }
    const slots = live.reduce((n, w) => n + w.slots, 0);
    const durable = await consumerFor(kind, location);
    const settleBy = Date.now() + Math.min(sopts.timeoutMs, FAILOVER_RETRY_MS);
    const info = await retryTransient(() => jsm.consumers.info(STREAM, durable), settleBy);
    if (info.num_pending >= slots * settings.queuePerSlot) {
      throw new NoWorkerError(`no worker resources: all ${live.length} ${kindName(kind)} workers for location ${location} are busy`);
    }

    const subject = resultSubject(requester, job.jobId);
    const sub: Subscription = nc.subscribe(subject, { max: 1 });
    const deadline = Date.now() + sopts.timeoutMs;
    const toSend = create(ScanJobSchema, { ...job, replySubject: subject, deadlineUnixMs: BigInt(deadline) });
    let seq = 0;
    let timer: NodeJS.Timeout | undefined;
    // The stored entry has the last word whenever the notification did not come: it may have been lost.
    let settle: (orElse: Error) => void = () => {};
    try {
      const result = new Promise<ScanJobResult>((resolve, reject) => {
        settle = (orElse) => stored(kindName(kind), job.jobId).then((r) => (r ? resolve(r) : reject(orElse)), () => reject(orElse));
        waiting.set(job.jobId, { kind: kindName(kind), since: Date.now(), resolve });
        (async () => {
          for await (const m of sub) return resolve(fromBinary(ScanJobResultSchema, m.data));
          reject(new ScanFailedError("the result subscription closed"));
        })().catch(reject);
        timer = setTimeout(() => settle(new ScanFailedError("the scan did not finish in time")), sopts.timeoutMs);
      });
      // Awaited below unless the publish fails; then its later rejection (subscription closed) is nobody's concern.
      result.catch(() => {});
      // The job id is the de-duplication key: a publish retried after a lost acknowledgement queues the job once.
      const ack = await retryTransient(() => js.publish(jobSubject(kind, location), toBinary(ScanJobSchema, toSend), { msgID: job.jobId, timeout: 5000 }), settleBy);
      seq = ack.seq;
      // Given up by JetStream after max_deliver (the advisory): failed, unless a delivery stored a result after all.
      bySeq.set(seq, (err) => settle(err));
      return await result;
    } catch (err) {
      // If it is still queued, make sure nobody runs it after its requester gave up.
      if (seq) void jsm.streams.deleteMessage(STREAM, seq).catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
      waiting.delete(job.jobId);
      if (seq) bySeq.delete(seq);
      sub.unsubscribe();
    }
  }

  async function resultOf(jobId: string, kind?: ScanKind): Promise<ScanJobResult | undefined> {
    if (!isJobIdToken(jobId)) return undefined;
    const kinds = kind === undefined ? ALL_KINDS : [kindName(kind)];
    // A kind this requester never submits is refused by its NATS permissions: nothing stored there for it.
    const found = await Promise.all(kinds.map((k) => stored(k, jobId).catch(() => undefined)));
    return found.find((r) => r !== undefined);
  }

  return {
    submit,
    resultOf,
    liveWorkers,
    async close() {
      clearInterval(poll);
      hbSub.unsubscribe();
      advisorySub.unsubscribe();
    },
  };
}
