import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import { envInt } from "../config.ts";
import { isPermissionViolation } from "../nats/connect.ts";
import { RESULTS_BUCKET, RESULTS_STREAM } from "../nats/names.ts";
import { ensureReplicatedStream, PLACEMENT_WAIT_MS } from "../nats/replicas.ts";
import { NATS_MAX_PAYLOAD } from "../nats/server.ts";

// Where workers leave every job's result before they ack it: the KV bucket cva_results, one entry per job, so a result
// outlives a reconnect or a restart of the process that asked. Key `<kind>.<requester>.<job_id>`: a worker may write
// only its own kind's (NATS permissions, nats/permissions.ts), a requester read only its own (direct gets by subject).

export interface ResultStoreSettings {
  /** How long a result stays readable: at least the idempotency window (24 h). */
  ttlMs: number;
  /**
   * The bucket's size bound; a full bucket refuses new results (nothing is evicted to make room). Not applied on a
   * nats-server older than 2.10.5 (discardNewBytesExact).
   */
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

/**
 * First writer wins, enforced by nats-server rather than by the honest writer's header. The honest worker creates a
 * key with `Nats-Expected-Last-Subject-Sequence: 0` (kv-write.ts), but that header is the writer's choice: a scanner's
 * NATS user may publish on its kind's keys, and with one message per key and the oldest discarded, a plain publish —
 * or a rollup, or a flood of other keys that evicts the entry — replaced a stored result. So:
 *  - `discard_new_per_subject` with `max_msgs_per_subject: 1`: the server refuses any second message on a key
 *    ("maximum messages per subject exceeded"), whatever its headers say. nats-server has it since 2.9.0 (Debian's
 *    2.9.10 included; the test runs it);
 *  - `discard: new` for the whole bucket (required by the above, and needed anyway): a full bucket refuses new
 *    results instead of evicting the oldest, so nobody can push a result out to write its key afresh. The price: a
 *    full bucket stores nothing more until entries expire (each result still reaches its requester through the
 *    notification; the worker logs it) — size SCAN_RESULTS_MAX_BYTES for a day of results;
 *  - no rollup headers (a `Nats-Rollup: sub` message is a KV purge that replaces the key), no deletes, no purges;
 *  - only the edge may update the bucket's configuration (nats/permissions.ts): the zip and VAST analyzers, which
 *    parse hostile files, may create it but not turn these settings off.
 * Readers keep reading the key's last message by direct get on the key's own subject: with one message per key ever,
 * it is the first. (A "first message by subject" read — a direct get with `next_by_subj` from sequence 0 — would
 * need the request subject without the key, i.e. the right to read every requester's results.) An entry can be
 * written again only after it expired (SCAN_RESULT_TTL_MS), when nobody reads it any more.
 */
const FIRST_WRITER_WINS = {
  discard: DiscardPolicy.New,
  discard_new_per_subject: true,
  max_msgs_per_subject: 1,
  allow_rollup_hdrs: false,
  deny_delete: true,
  deny_purge: true,
} as const;

/**
 * Whether a discard-new stream's byte bound is exact on this nats-server. Before 2.10.5 the file store checked a new
 * message's payload and headers against max_bytes but stored its subject and record overhead too, went over the
 * bound, and then evicted the oldest message to get back under it (nats-server "Fix DiscardNew exceed bytes
 * calculation", 2.10.5): at the bound, every small publish pushed the oldest result out — the eviction discard-new is
 * there to prevent (measured on 2.9.10 by the test). On such a server the bucket gets no byte bound: its TTL bounds
 * it, and the server's JetStream store limit.
 */
export function discardNewBytesExact(serverVersion: string | undefined): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(serverVersion ?? "");
  if (!m) return false;
  const [major, minor, patch] = m.slice(1).map(Number) as [number, number, number];
  return major > 2 || (major === 2 && (minor > 10 || (minor === 10 && patch >= 5)));
}

function wanted(s: ResultStoreSettings, serverVersion: string | undefined) {
  return { ...FIRST_WRITER_WINS, max_bytes: discardNewBytesExact(serverVersion) ? s.maxBytes : -1 };
}

function enforces(c: Partial<StreamConfig>, want: ReturnType<typeof wanted>): boolean {
  const safe = (Object.keys(FIRST_WRITER_WINS) as Array<keyof typeof FIRST_WRITER_WINS>).every((k) => (c[k] ?? false) === FIRST_WRITER_WINS[k]);
  // A byte bound the server cannot keep without evicting is not safe, whatever its value.
  return safe && (want.max_bytes !== -1 || (c.max_bytes ?? -1) <= 0);
}

// Created by requesters (they may; workers may not), as the SCANS stream is; a KV bucket in the layout KV tools expect.
// A bucket made by an earlier release (oldest discarded, rollups allowed) is brought to FIRST_WRITER_WINS; a requester
// that may not update it (zip and VAST analyzers) waits for the edge to do so. A server that does not keep the
// settings stops the requester: results that anyone of the kind can overwrite are worse than no start.
export async function ensureResultBucket(jsm: JetStreamManager, replicas: number, s: ResultStoreSettings, serverVersion?: string): Promise<void> {
  const want = wanted(s, serverVersion);
  try {
    await ensureReplicatedStream(jsm, {
      name: RESULTS_STREAM,
      subjects: [`$KV.${RESULTS_BUCKET}.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      ...want,
      max_age: nanos(s.ttlMs),
      max_msg_size: NATS_MAX_PAYLOAD,
      // Retried writes of the same result (a lost acknowledgement) within this window are recognised as such.
      duplicate_window: nanos(Math.min(2 * 60_000, s.ttlMs)),
      allow_direct: true,
      num_replicas: replicas,
    });
  } catch (err) {
    // Scaling an existing bucket up is the edge's (below); created or not, what matters here is its settings.
    if (!isPermissionViolation(err)) throw err;
  }
  const until = Date.now() + PLACEMENT_WAIT_MS;
  for (;;) {
    const have = (await jsm.streams.info(RESULTS_STREAM)).config;
    if (enforces(have, want)) return;
    const updated = await jsm.streams.update(RESULTS_STREAM, { ...have, ...want }).then(
      (i) => i.config,
      (err: unknown) => {
        if (isPermissionViolation(err)) return undefined;
        throw err;
      },
    );
    if (updated && enforces(updated, want)) return;
    if (updated || Date.now() > until) {
      throw new Error(
        updated
          ? `nats-server did not keep ${RESULTS_STREAM}'s first-writer-wins settings (discard_new_per_subject needs nats-server 2.9 or later)`
          : `${RESULTS_STREAM} still lets stored results be replaced, and this user may not change it: start the edge, which does`,
      );
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The stored result of a job (the first and only one written), or undefined. Any replica may answer a direct get. */
export async function readResult(jsm: JetStreamManager, kind: string, requester: string, jobId: string): Promise<Uint8Array | undefined> {
  const m = await jsm.direct.getMessage(RESULTS_STREAM, { last_by_subj: resultKeySubject(kind, requester, jobId) });
  return m && m.data.length > 0 ? m.data : undefined;
}
