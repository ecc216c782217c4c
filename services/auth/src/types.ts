export interface ApiKeyInfo {
  keyId: string;
  customerId: string;
  createdUnix: number;
  revoked: boolean;
}

export interface CustomerInfo {
  customerId: string;
  monthlyQuota: number;
  usedThisMonth: number;
  // YYYY-MM (UTC) that usedThisMonth counts.
  month: string;
}

export interface ReserveOptions {
  // How long the reservation may stay uncommitted before a reaper refunds it; default: the store's reservationTtlMs.
  ttlMs?: number;
  // With requestHash: a retry of the same request answers the earlier scan instead of charging again.
  idempotencyKey?: string;
  requestHash?: string;
  // Cap on the customer's uncommitted, unexpired reservations (this one included); 0 or absent: no cap.
  maxInFlight?: number;
  // Caps per lane (the workers of one scan kind): the reservation runs on every lane listed, and on each the
  // customer's unexpired uncommitted reservations stay at most `max` (0: no cap on that lane).
  inFlightCaps?: InFlightCap[];
  // The caller's own id for this reservation (PROPOSED_RESERVATION_ID): a repeated call with it answers the
  // reservation the first call made, so a caller that lost an answer can ask again (or refund) without holding two.
  reservationId?: string;
  // Answers replay, key conflict and quota as a reservation would, holding, charging and claiming nothing (in-flight
  // caps unchecked): for a request the caller refuses anyway. An ok result has an empty reservationId.
  checkOnly?: boolean;
}

export interface InFlightCap {
  lane: string;
  max: number;
}

export type ReserveResult =
  | { ok: true; reservationId: string; remaining: number; month: string; expiresUnixMs: number }
  | { ok: false; reason: "quota"; used: number; quota: number; month: string }
  // `lane`: the lane whose cap was reached; absent for max_in_flight, the whole customer's cap.
  | { ok: false; reason: "in_flight"; inFlight: number; maxInFlight: number; lane?: string }
  // The idempotency key is held by a different request.
  | { ok: false; reason: "key_conflict" }
  // The idempotency key is held by the same request: its job is done (report stored) or still running.
  | { ok: false; reason: "replay"; replay: "done"; jobId: string }
  | { ok: false; reason: "replay"; replay: "running"; jobId: string; reservationId: string };

// An uncommitted reservation as the counter holds it.
export interface HeldReservation {
  reservationId: string;
  customerId: string;
  month: string;
  expiresUnixMs: number;
}

// Stored values (JSON). The plaintext key never appears in any of them.
export interface KeyRecord {
  key_id: string;
  customer_id: string;
  created_unix: number;
  revoked: boolean;
  // Hex SHA-256 of the key, also the KV key; kept in the value so Authenticate can compare in constant time.
  sha256: string;
}

export interface CustomerRecord {
  customer_id: string;
  monthly_quota: number;
  created_unix: number;
}

export interface CounterRecord {
  used: number;
  // The month's uncommitted reservations: reservation id → expiry (ms since epoch). Changed in the same
  // compare-and-swap as `used`, so a charge is never without its hold (the reaper finds every one) and a refund's
  // decrement happens exactly when its hold is removed.
  held?: Record<string, number>;
  // The lanes each held reservation runs on (reservation id → lanes), written and removed with its hold. A hold
  // without an entry (made without lanes) counts on every lane.
  lanes?: Record<string, string[]>;
}

export type ReservationState = "held" | "committed" | "refunded";

export interface ReservationRecord {
  customer_id: string;
  month: string;
  job_id: string;
  created_unix_ms: number;
  // Absent on records written before reservations expired (no hold in the counter: refunded the old way).
  expires_unix_ms?: number;
  // Decided once, by compare-and-swap: held → committed | refunded. Absent on older records (see `refunded`).
  state?: ReservationState;
  // Kept equal to state === "refunded" for readers of the older layout.
  refunded: boolean;
}

// i.<b64url customer>.<sha256 hex of the key>: which scan an idempotency key belongs to. Its state is its
// reservation's: held (running), committed (done) or refunded (released: the key may be used again).
export interface IdempotencyRecord {
  request_hash: string;
  job_id: string;
  reservation_id: string;
  created_unix_ms: number;
  // The reservation's expiry: a claim whose reservation record never appeared is released after it.
  expires_unix_ms: number;
}
