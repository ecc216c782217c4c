import { Kvm, type KV } from "@nats-io/kv";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { isRevisionConflict } from "./cas.ts";

// The quota bucket as the ledger uses it: reads through the stream leader, and compare-and-swap writes that stay
// exclusive on a replicated bucket.
//
// Why not plain `kv.get` / `kv.update`:
//  - A bucket at R3 has allow_direct, and `kv.get` is then a direct get that any replica may answer, a lagging
//    follower included (a node restarted after a crash catches up for seconds): a reservation record just written
//    can be missing there, or a decided one still "held". Every read here goes to the stream leader instead
//    ($JS.API.STREAM.MSG.GET), which has applied each write it acknowledged.
//  - On a clustered stream, nats-server checks `Nats-Expected-Last-Subject-Sequence` only on the leader before it
//    proposes the write, not when the write is applied; writes in flight at the same time are not seen by that check.
//    Two updates of one key with the same expected revision can then both succeed, and the later one silently
//    overwrites the earlier (nats-server issue 4320, fixed in 2.9.21 but still open across a leader change, issue
//    8469; measured here on nats-server 2.9.10: three concurrent `kv.update`s of one key with one revision, more than
//    one succeeded in 49–50 of 50 rounds). For the quota counter that loses reservations and settlements: scans that
//    were committed end up never counted. So every update also carries `Nats-Msg-Id: <key>@<expected revision>`:
//    the stream's de-duplication, which a clustered leader does stage for writes in flight, accepts one write per
//    key and revision, and the others are answered as duplicates, which are revision conflicts here (measured: one
//    winner in each of 100 rounds). A revision is a stream sequence, used once, so the id never names two states.
//    Creates (expected revision 0) are checked when applied, in log order, and need no id.
export interface LedgerKv {
  get: KV["get"];
  keys: KV["keys"];
  watch: KV["watch"];
  create(key: string, value: string): Promise<number>;
  update(key: string, value: string, revision: number): Promise<number>;
  delete(key: string, opts: { previousSeq: number }): Promise<void>;
}

// JetStream's "wrong last sequence" (10071): what casLoop retries on.
export class RevisionConflictError extends Error {
  readonly code = 10071;
  readonly api_error = { err_code: 10071 };
}

const PUBLISH_TIMEOUT_MS = 5_000;

export async function openLedgerKv(nc: NatsConnection, bucket: string): Promise<LedgerKv> {
  // Bound, not created: the caller made the bucket (replicatedKvm). allow_direct false: gets go to the leader.
  const kv = await new Kvm(nc).open(bucket, { allow_direct: false });
  const subject = (key: string) => `$KV.${bucket}.${key}`;

  async function publish(key: string, value: string, revision: number, op?: "DEL"): Promise<number> {
    const h = headers();
    h.set("Nats-Expected-Last-Subject-Sequence", String(revision));
    if (revision > 0) h.set("Nats-Msg-Id", `${key}@${revision}`);
    if (op) h.set("KV-Operation", op);
    const m = await nc.request(subject(key), value, { headers: h, timeout: PUBLISH_TIMEOUT_MS });
    const ack = m.json<{ stream?: string; seq?: number; duplicate?: boolean; error?: { code?: number; err_code?: number; description?: string } }>();
    if (ack.error) {
      const err = new Error(ack.error.description ?? `JetStream error ${ack.error.err_code ?? ack.error.code}`) as Error & { code?: number; api_error?: unknown };
      err.code = ack.error.err_code;
      err.api_error = ack.error;
      throw err;
    }
    if (!ack.stream || typeof ack.seq !== "number") throw new Error(`invalid JetStream ack for ${subject(key)}`);
    // Another write with the same expected revision got there first: ours was not stored.
    if (ack.duplicate) throw new RevisionConflictError(`wrong last sequence: ${key} was changed from revision ${revision} by another writer`);
    return ack.seq;
  }

  async function update(key: string, value: string, revision: number): Promise<number> {
    if (!(revision > 0)) throw new Error("revision must be greater than 0");
    return publish(key, value, revision);
  }

  return {
    get: (k, opts) => kv.get(k, opts),
    keys: (filter) => kv.keys(filter),
    watch: (opts) => kv.watch(opts),
    update,
    async create(key, value) {
      try {
        return await publish(key, value, 0);
      } catch (err) {
        if (!isRevisionConflict(err)) throw err;
        // As kv.create: a deleted or purged key may be created again, over its tombstone's revision.
        const e = await kv.get(key);
        if (e && (e.operation === "DEL" || e.operation === "PURGE")) return update(key, value, e.revision);
        throw err;
      }
    },
    async delete(key, opts) {
      await publish(key, "", opts.previousSeq, "DEL");
    },
  };
}
