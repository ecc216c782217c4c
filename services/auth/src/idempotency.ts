import { createHash } from "node:crypto";
import { casLoop, isRevisionConflict } from "./cas.ts";
import { token } from "./encode.ts";
import { invalidArgument } from "@cva/platform";
import type { LedgerKv } from "./ledger-kv.ts";
import { live, reservationKvKey, stateOf } from "./reservation-record.ts";
import type { IdempotencyRecord, ReservationRecord, ReserveResult } from "./types.ts";

// Idempotency keys: a client's retry of a scan (same customer, key and request) is answered with the first scan's
// job instead of a second charge. The record only points at a reservation; the reservation's own state, decided
// once by compare-and-swap, says whether the key is running (held), done (committed) or free again (refunded:
// a failed scan must not pin its key).

// How long a key is remembered after the scan it started.
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
// 1–255 printable ASCII characters, as the edge documents the header.
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;
const HASH_FORMAT = /^[A-Za-z0-9_+/=-]{16,128}$/;

export function checkIdempotencyArgs(key: string, requestHash: string | undefined): string {
  if (!KEY_FORMAT.test(key)) throw invalidArgument("idempotency_key must be 1–255 printable ASCII characters");
  if (!requestHash || !HASH_FORMAT.test(requestHash)) throw invalidArgument("request_hash is required with idempotency_key (16–128 base64/hex characters)");
  return requestHash;
}

// The key itself may hold any printable character ('.', '*', '>' and spaces included), so the KV key carries its
// digest: one subject token, fixed length.
export function idempotencyKvKey(customerId: string, key: string): string {
  return `i.${token(customerId)}.${createHash("sha256").update(key, "utf8").digest("hex")}`;
}

type KeyState = "done" | "running" | "released";

async function keyState(kv: LedgerKv, cur: IdempotencyRecord, now: number): Promise<KeyState> {
  if (now - cur.created_unix_ms >= IDEMPOTENCY_WINDOW_MS) return "released";
  const e = await kv.get(reservationKvKey(cur.reservation_id));
  // The claim is written before its reservation: until the reservation's expiry, a missing record is a scan being
  // reserved; after it, a reservation that never came (refused, or its auth replica died).
  if (!live(e)) return now < cur.expires_unix_ms ? "running" : "released";
  const r = e.json<ReservationRecord>();
  switch (stateOf(r)) {
    case "committed":
      return "done";
    case "refunded":
      return "released";
    case "held":
      // Past its expiry a held reservation belongs to the reaper (commit refuses it too): the key is free.
      return now < (r.expires_unix_ms ?? cur.expires_unix_ms) ? "running" : "released";
  }
}

export type KeyClaim = { claimed: true; kvKey: string; revision: number } | { claimed: false; result: ReserveResult };

// Takes the key for `fresh` (a new scan) unless it is held by a scan that is running or done: then that scan is the
// answer, or a conflict when it was for a different request.
export async function claimIdempotencyKey(kv: LedgerKv, customerId: string, key: string, fresh: IdempotencyRecord, now: number): Promise<KeyClaim> {
  const kvKey = idempotencyKvKey(customerId, key);
  const value = JSON.stringify(fresh);
  return casLoop("idempotency key", async (): Promise<KeyClaim> => {
    const e = await kv.get(kvKey);
    if (live(e)) {
      const cur = e.json<IdempotencyRecord>();
      // Our own claim, made by a first call with the same proposed reservation id whose answer was lost.
      if (cur.reservation_id === fresh.reservation_id && cur.request_hash === fresh.request_hash) return { claimed: true, kvKey, revision: e.revision };
      const earlier = await answerOf(kv, cur, fresh.request_hash, now);
      if (earlier) return { claimed: false, result: earlier };
      return { claimed: true, kvKey, revision: await kv.update(kvKey, value, e.revision) };
    }
    return { claimed: true, kvKey, revision: await kv.create(kvKey, value) };
  });
}

// What claiming the key for a request with `requestHash` would answer, without claiming it: the earlier scan (a
// replay or a conflict), or undefined when the key is free.
export async function peekIdempotencyKey(kv: LedgerKv, customerId: string, key: string, requestHash: string, now: number): Promise<ReserveResult | undefined> {
  const e = await kv.get(idempotencyKvKey(customerId, key));
  if (!live(e)) return undefined;
  return answerOf(kv, e.json<IdempotencyRecord>(), requestHash, now);
}

// The earlier scan holding a key, as the answer to a request with `requestHash`; undefined when the key is free.
async function answerOf(kv: LedgerKv, cur: IdempotencyRecord, requestHash: string, now: number): Promise<ReserveResult | undefined> {
  const state = await keyState(kv, cur, now);
  if (state === "released") return undefined;
  if (cur.request_hash !== requestHash) return { ok: false, reason: "key_conflict" };
  return state === "done"
    ? { ok: false, reason: "replay", replay: "done", jobId: cur.job_id }
    : { ok: false, reason: "replay", replay: "running", jobId: cur.job_id, reservationId: cur.reservation_id };
}

// Gives a claim back when its reservation was refused (quota, cap), so a retry is not kept waiting for a scan that
// never ran. Only our own claim is removed: a newer one has another revision.
export async function releaseIdempotencyKey(kv: LedgerKv, claim: { kvKey: string; revision: number }): Promise<void> {
  try {
    await kv.delete(claim.kvKey, { previousSeq: claim.revision });
  } catch (err) {
    if (!isRevisionConflict(err)) throw err;
  }
}
