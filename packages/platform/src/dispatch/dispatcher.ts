import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { jetstream, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { ScanJobResultSchema, ScanJobSchema, WorkerHeartbeatSchema, type ScanJob, type ScanJobResult, type ScanKind, type WorkerHeartbeat } from "@cva/contracts";
import type { Logger } from "pino";
import { NoWorkerError, ScanFailedError } from "./errors.ts";
import { splitLocations } from "./locations.ts";
import { dispatchSettingsFromEnv, type DispatchSettings } from "./settings.ts";
import { natsUserOf } from "../nats/connect.ts";
import { ensureConsumer, ensureStream, manager } from "./stream.ts";
import { HEARTBEAT_WILDCARD, jobSubject, kindName, maxDeliveriesAdvisory, resultSubject, STREAM } from "./subjects.ts";

export interface SubmitOptions {
  timeoutMs: number;
  // Worker location; defaults to the job's targeting.country, then the dispatcher's default location.
  location?: string;
}

export interface Dispatcher {
  submit(job: ScanJob, opts: SubmitOptions): Promise<ScanJobResult>;
  liveWorkers(kind: ScanKind, location?: string): WorkerHeartbeat[];
  close(): Promise<void>;
}

// The requester's side of the work queue. It knows who is alive from worker heartbeats (no per-request probe), so
// "no worker resources" is answered at once, and it bounds the queue so a saturated fleet is refused rather than
// letting requests wait out their time-outs.
export async function createDispatcher(nc: NatsConnection, opts: { logger: Logger; defaultLocation?: string; settings?: DispatchSettings }): Promise<Dispatcher> {
  const settings = opts.settings ?? dispatchSettingsFromEnv();
  const jsm: JetStreamManager = await manager(nc);
  await ensureStream(jsm);
  const js = jetstream(nc);
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
    const location = sopts.location || job.targeting?.country || defaultLocation;
    const kind = job.kind;
    const live = liveWorkers(kind, location);
    if (live.length === 0) {
      throw new NoWorkerError(`no worker resources: no ${kindName(kind)} worker is running for location ${location}`);
    }
    const slots = live.reduce((n, w) => n + w.slots, 0);
    const durable = await consumerFor(kind, location);
    const info = await jsm.consumers.info(STREAM, durable);
    if (info.num_pending >= slots * settings.queuePerSlot) {
      throw new NoWorkerError(`no worker resources: all ${live.length} ${kindName(kind)} workers for location ${location} are busy`);
    }

    const subject = resultSubject(requester, job.jobId);
    const sub: Subscription = nc.subscribe(subject, { max: 1 });
    const deadline = Date.now() + sopts.timeoutMs;
    const toSend = create(ScanJobSchema, { ...job, replySubject: subject, deadlineUnixMs: BigInt(deadline) });
    let seq = 0;
    let timer: NodeJS.Timeout | undefined;
    try {
      const failed = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ScanFailedError("the scan did not finish in time")), sopts.timeoutMs);
      });
      const ack = await js.publish(jobSubject(kind, location), toBinary(ScanJobSchema, toSend), { msgID: job.jobId });
      seq = ack.seq;
      const result = new Promise<ScanJobResult>((resolve, reject) => {
        bySeq.set(seq, reject);
        (async () => {
          for await (const m of sub) return resolve(fromBinary(ScanJobResultSchema, m.data));
          reject(new ScanFailedError("the result subscription closed"));
        })().catch(reject);
      });
      return await Promise.race([result, failed]);
    } catch (err) {
      // If it is still queued, make sure nobody runs it after its requester gave up.
      if (seq) void jsm.streams.deleteMessage(STREAM, seq).catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
      if (seq) bySeq.delete(seq);
      sub.unsubscribe();
    }
  }

  return {
    submit,
    liveWorkers,
    async close() {
      hbSub.unsubscribe();
      advisorySub.unsubscribe();
    },
  };
}
