import { AckPolicy, DeliverPolicy, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { ScanKind } from "@cva/contracts";
import { isPermissionViolation } from "../nats/connect.ts";
import { ensureReplicatedStream } from "../nats/replicas.ts";
import { NATS_MAX_PAYLOAD } from "../nats/server.ts";
import type { DispatchSettings } from "./settings.ts";
import { consumerName, jobSubject, JOB_SUBJECTS } from "./subjects.ts";
import { STREAM } from "../nats/names.ts";

const nanos = (ms: number) => ms * 1_000_000;

// Idempotent: whoever comes first creates the stream and the consumer. Under NATS permissions only requesters may
// create the stream (at `replicas`, nats/replicas.ts; they also scale up one made at R1); a worker that is not allowed
// to waits until one has (up to waitMs), so start order is free.
export async function ensureStream(jsm: JetStreamManager, opts: { waitMs?: number; replicas?: number } = {}): Promise<void> {
  const config = {
    name: STREAM,
    subjects: [JOB_SUBJECTS],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    max_msg_size: NATS_MAX_PAYLOAD,
    // A job nobody took within 10 minutes is stale: its requester gave up long ago.
    max_age: nanos(10 * 60_000),
    duplicate_window: nanos(2 * 60_000),
    num_replicas: opts.replicas ?? 1,
  };
  try {
    await ensureReplicatedStream(jsm, config);
  } catch (err) {
    if (isPermissionViolation(err)) return waitForStream(jsm, opts.waitMs ?? 10 * 60_000, err);
    throw err;
  }
}

async function waitForStream(jsm: JetStreamManager, waitMs: number, cause: unknown): Promise<void> {
  const end = Date.now() + waitMs;
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    if (await jsm.streams.info(STREAM).then(() => true, () => false)) return;
    if (Date.now() > end) throw new Error(`stream ${STREAM} does not exist and this NATS user may not create it (a requester such as the edge does)`, { cause });
  }
}

export async function ensureConsumer(jsm: JetStreamManager, kind: ScanKind, location: string, s: DispatchSettings): Promise<string> {
  const name = consumerName(kind, location);
  const config = {
    durable_name: name,
    filter_subject: jobSubject(kind, location),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(s.ackWaitMs),
    max_deliver: s.maxDeliver,
    // Shared by every worker of this kind+location; each worker bounds itself by fetching only free slots.
    max_ack_pending: 10_000,
    max_waiting: 512,
  };
  try {
    const info = await jsm.consumers.info(STREAM, name);
    if (info.config.ack_wait !== config.ack_wait || info.config.max_deliver !== config.max_deliver) {
      await jsm.consumers.update(STREAM, name, { ack_wait: config.ack_wait, max_deliver: config.max_deliver });
    }
  } catch {
    try {
      await jsm.consumers.add(STREAM, config);
    } catch (err) {
      await jsm.consumers.info(STREAM, name).catch(() => {
        throw err;
      });
    }
  }
  return name;
}

export async function manager(nc: NatsConnection): Promise<JetStreamManager> {
  return jetstreamManager(nc);
}
