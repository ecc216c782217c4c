import type { KvEntry } from "@nats-io/kv";
import type { ReservationRecord, ReservationState } from "./types.ts";

// What the reservation records in cva_quota look like and how their state is read; shared by the reservation
// ledger and the idempotency keys (a key's state is its reservation's).

export const RESERVATION_ID = /^[A-Za-z0-9_-]{16,64}$/;
// An id a caller proposes: at least 24 characters (144 bits, as auth's own), so none is guessable.
export const PROPOSED_RESERVATION_ID = /^[A-Za-z0-9_-]{24,64}$/;

export const reservationKvKey = (reservationId: string) => `r.${reservationId}`;

export const live = (e: KvEntry | null): e is KvEntry => !!e && e.operation === "PUT" && e.length > 0;

export function stateOf(r: ReservationRecord): ReservationState {
  return r.state ?? (r.refunded ? "refunded" : "held");
}

export function isExpired(r: ReservationRecord, now: number): boolean {
  return r.expires_unix_ms !== undefined && r.expires_unix_ms <= now;
}
