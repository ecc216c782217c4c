import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager } from "@nats-io/jetstream";
import { envInt } from "../config.ts";
import { ensureReplicatedStream } from "../nats/replicas.ts";
import { NATS_MAX_PAYLOAD } from "../nats/server.ts";

// Where workers leave every job's result before they ack it: the KV bucket cva_results, one entry per job, so a result
// outlives a reconnect or a restart of the process that asked. Key `<kind>.<requester>.<job_id>`: a worker may write
// only its own kind's (NATS permissions, nats/permissions.ts), a requester read only its own (direct gets by subject).
export const RESULTS_BUCKET = "cva_results";
export const RESULTS_STREAM = `KV_${RESULTS_BUCKET}`;

export interface ResultStoreSettings {
  /** How long a result stays readable: at least the idempotency window (24 h). */
  ttlMs: number;
  /** The bucket's size bound; past it the oldest results go first. */
  maxBytes: number;
}

export function resultStoreSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ResultStoreSettings {
  return {
    ttlMs: envInt("SCAN_RESULT_TTL_MS", 24 * 3600_000, env),
    maxBytes: envInt("SCAN_RESULTS_MAX_BYTES", 1024 ** 3, env),
  };
}

// Job ids are UUIDs, `<uuid>-<suffix>` for child jobs: one subject token each.
const TOKEN = /^[A-Za-z0-9_-]{1,200}$/;
export const isJobIdToken = (jobId: string) => TOKEN.test(jobId);

export function resultKeySubject(kind: string, requester: string, jobId: string): string {
  if (!TOKEN.test(jobId)) throw new Error(`job id ${JSON.stringify(jobId.slice(0, 60))} is not a subject token`);
  return `$KV.${RESULTS_BUCKET}.${kind}.${requester}.${jobId}`;
}

const nanos = (ms: number) => ms * 1_000_000;

// Created by requesters (they may; workers may not), as the SCANS stream is; a KV bucket in the layout KV tools expect,
// except that a full bucket drops its oldest results rather than refusing new ones.
export async function ensureResultBucket(jsm: JetStreamManager, replicas: number, s: ResultStoreSettings): Promise<void> {
  await ensureReplicatedStream(jsm, {
    name: RESULTS_STREAM,
    subjects: [`$KV.${RESULTS_BUCKET}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_msgs_per_subject: 1,
    max_age: nanos(s.ttlMs),
    max_bytes: s.maxBytes,
    max_msg_size: NATS_MAX_PAYLOAD,
    // Retried writes of the same result (a lost acknowledgement) within this window are recognised as such.
    duplicate_window: nanos(Math.min(2 * 60_000, s.ttlMs)),
    allow_rollup_hdrs: true,
    deny_delete: true,
    allow_direct: true,
    num_replicas: replicas,
  });
}

/** The stored result of a job, or undefined. A direct get may be answered by any replica. */
export async function readResult(jsm: JetStreamManager, kind: string, requester: string, jobId: string): Promise<Uint8Array | undefined> {
  const m = await jsm.direct.getMessage(RESULTS_STREAM, { last_by_subj: resultKeySubject(kind, requester, jobId) });
  return m && m.data.length > 0 ? m.data : undefined;
}
