import { randomUUID } from "node:crypto";
import { DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { SIDE_EFFECTS_BUCKET, SIDE_EFFECTS_STREAM } from "../nats/names.ts";
import { ensureReplicatedStream, jetStreamReplicas } from "../nats/replicas.ts";
import { createIfAbsent } from "./kv-write.ts";
import { isJobIdToken } from "./results.ts";

// At most once for what a scan does to third parties on the customer's behalf (VAST impression pixels): a job whose
// first delivery is still running when JetStream redelivers it (an event loop stalled past ack_wait) must not fire
// them a second time. Before firing, a delivery claims `<job_id>.<effect>` in the KV bucket cva_side_effects by
// create-if-absent; only the delivery that created the entry fires. A delivery that claimed and then died leaves the
// effect unfired: at most once, never twice.

export interface SideEffectGuard {
  /** True for the one delivery of the job that may fire `effect`, false when an earlier delivery claimed it. */
  claim(jobId: string, effect: string, opts?: { signal?: AbortSignal; deadline?: number }): Promise<boolean>;
}

const EFFECT = /^[a-z][a-z0-9_]{0,40}$/;
const nanos = (ms: number) => ms * 1_000_000;

export async function createSideEffectGuard(nc: NatsConnection, opts: { ttlMs?: number } = {}): Promise<SideEffectGuard> {
  // A claim must outlive every delivery of its job (max_deliver × ack_wait, bounded by the job's deadline); a day is
  // far beyond that and matches the results' lifetime.
  const ttlMs = opts.ttlMs ?? 24 * 3600_000;
  await ensureReplicatedStream(await jetstreamManager(nc), {
    name: SIDE_EFFECTS_STREAM,
    subjects: [`$KV.${SIDE_EFFECTS_BUCKET}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_msgs_per_subject: 1,
    max_age: nanos(ttlMs),
    // Claims are ~100 bytes: 64 MB hold more than a day of jobs.
    max_bytes: 64 * 1024 * 1024,
    duplicate_window: nanos(Math.min(2 * 60_000, ttlMs)),
    allow_rollup_hdrs: true,
    deny_delete: true,
    allow_direct: true,
    num_replicas: jetStreamReplicas(nc),
  });
  const js = jetstream(nc);
  return {
    async claim(jobId, effect, o = {}) {
      if (!isJobIdToken(jobId)) throw new Error(`job id ${JSON.stringify(jobId.slice(0, 60))} is not a subject token`);
      if (!EFFECT.test(effect)) throw new Error(`side effect name ${JSON.stringify(effect)} is not a subject token`);
      const nonce = randomUUID();
      const body = new TextEncoder().encode(JSON.stringify({ claimed_at: new Date().toISOString(), claim: nonce }));
      const outcome = await createIfAbsent(js, `$KV.${SIDE_EFFECTS_BUCKET}.${jobId}.${effect}`, body, {
        msgID: nonce,
        deadline: o.deadline ?? Date.now() + 30_000,
        signal: o.signal,
      });
      return outcome === "created";
    },
  };
}
