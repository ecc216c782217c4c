import { randomBytes } from "node:crypto";
import { casLoop, isRevisionConflict } from "./cas.ts";
import { previousUtcMonth, token, untoken, utcMonth, utcMonthStart } from "./encode.ts";
import { invalidArgument, notFound } from "@cva/platform";
import { checkIdempotencyArgs, claimIdempotencyKey, peekIdempotencyKey, releaseIdempotencyKey, type KeyClaim } from "./idempotency.ts";
import type { LedgerKv } from "./ledger-kv.ts";
import { PROPOSED_RESERVATION_ID, RESERVATION_ID, isExpired, live, reservationKvKey, stateOf } from "./reservation-record.ts";
import type { CounterRecord, CustomerRecord, HeldReservation, InFlightCap, ReservationRecord, ReservationState, ReserveOptions, ReserveResult } from "./types.ts";

// Quota reservations that settle themselves. A reservation is charged and held in one compare-and-swap of the
// month's counter (`used` + `held[id] = expiry`), so quota and the in-flight cap are exact together across any
// number of edges and auth replicas. Its record's state is then decided exactly once, by compare-and-swap:
// committed (the edge stored the report) or refunded (the scan failed, or nobody committed it before its expiry).
// Settling removes the hold from the counter — with the decrement, for a refund — in one more compare-and-swap that
// only acts while the hold is there: whoever settles (edge, reaper, a replica finishing a crashed one's work),
// the money moves once.

// In-flight caps are per lane — the workers of one scan kind — so that one customer cannot hold every slot of a kind
// while its share of another stays idle; a scan runs on every lane it uses (a zip on the zip analyzer and, for its
// render, on the tag scanner). The caps are checked in the same compare-and-swap as the quota, so they are exact too.

// Default lifetime of an uncommitted reservation when the caller names none (README: RESERVATION_TTL_MS).
export const DEFAULT_RESERVATION_TTL_MS = 120_000;
// Longest lifetime a caller may ask for. Also bounds how long last month's holds can still count towards the cap.
export const MAX_RESERVATION_TTL_MS = 3_600_000;

const COUNTER_KEY = /^u\.([A-Za-z0-9_-]+)\.(\d{4}-\d{2})$/;
export const counterKvKey = (customerId: string, month: string) => `u.${token(customerId)}.${month}`;

export interface SettleResult {
  // Reservations this call refunded (it won the compare-and-swap deciding them).
  refunded: number;
  // Holds this call removed from the counter (its own decisions, or ones a crashed caller left unsettled).
  settled: number;
}

const LANE = /^[a-z][a-z0-9_-]{0,31}$/;
const MAX_LANES = 8;

// Unexpired holds of a counter: all of them, or those on `lane` (a hold recorded without lanes counts on every lane).
function unexpired(c: CounterRecord, now: number, lane?: string): number {
  let n = 0;
  for (const [id, exp] of Object.entries(c.held ?? {})) {
    if (exp <= now) continue;
    const lanes = c.lanes?.[id];
    if (lane === undefined || !lanes || lanes.includes(lane)) n++;
  }
  return n;
}

function checkInFlightCaps(caps: InFlightCap[] | undefined): InFlightCap[] {
  const out = caps ?? [];
  if (out.length > MAX_LANES) throw invalidArgument(`in_flight_caps: at most ${MAX_LANES} lanes`);
  for (const c of out) {
    if (!LANE.test(c.lane)) throw invalidArgument("in_flight_caps: a lane is 1–32 characters a-z, 0-9, _ or -, starting with a letter");
    if (!Number.isSafeInteger(c.max) || c.max < 0) throw invalidArgument("in_flight_caps: max must be a non-negative integer");
  }
  if (new Set(out.map((c) => c.lane)).size !== out.length) throw invalidArgument("in_flight_caps: each lane once");
  return out;
}

export class ReservationLedger {
  constructor(
    // Leader reads, exclusive compare-and-swap (ledger-kv.ts): every decision below rests on both.
    private readonly kv: LedgerKv,
    private readonly readCustomer: (customerId: string) => Promise<CustomerRecord | undefined>,
    private readonly now: () => number,
    private readonly defaultTtlMs: number,
  ) {}

  async reserve(customerId: string, jobId: string, opts: ReserveOptions = {}): Promise<ReserveResult> {
    const ttlMs = opts.ttlMs || this.defaultTtlMs;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 0 || ttlMs > MAX_RESERVATION_TTL_MS) {
      throw invalidArgument(`ttl_ms must be an integer from 1 to ${MAX_RESERVATION_TTL_MS}`);
    }
    const maxInFlight = opts.maxInFlight ?? 0;
    if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 0) throw invalidArgument("max_in_flight must be a non-negative integer");
    const caps = checkInFlightCaps(opts.inFlightCaps);
    const requestHash = opts.idempotencyKey ? checkIdempotencyArgs(opts.idempotencyKey, opts.requestHash) : "";
    const cust = await this.readCustomer(customerId);
    if (!cust) throw notFound(`no customer ${JSON.stringify(customerId)}`);

    const now = this.now();
    const expires = now + ttlMs;
    const month = utcMonth(now);
    if (opts.reservationId !== undefined && !PROPOSED_RESERVATION_ID.test(opts.reservationId)) {
      throw invalidArgument("reservation_id must be 24–64 base64url characters");
    }
    if (opts.checkOnly) return this.check(customerId, cust.monthly_quota, month, now, opts.idempotencyKey, requestHash);
    const reservationId = opts.reservationId ?? randomBytes(18).toString("base64url");
    if (opts.reservationId !== undefined) {
      // A repeated call (its first answer was lost): the reservation the first call made is the answer.
      const again = await this.repeated(customerId, jobId, reservationId, cust.monthly_quota);
      if (again) return again;
    }
    let claim: KeyClaim | undefined;
    if (opts.idempotencyKey) {
      claim = await claimIdempotencyKey(
        this.kv,
        customerId,
        opts.idempotencyKey,
        { request_hash: requestHash, job_id: jobId, reservation_id: reservationId, created_unix_ms: now, expires_unix_ms: expires },
        now,
      );
      if (!claim.claimed) return claim.result;
    }
    const release = async () => {
      if (claim?.claimed) await releaseIdempotencyKey(this.kv, claim);
    };

    let held: Awaited<ReturnType<ReservationLedger["hold"]>>;
    try {
      held = await this.hold(customerId, cust.monthly_quota, month, reservationId, expires, now, maxInFlight, caps);
    } catch (err) {
      await release().catch(() => {});
      throw err;
    }
    if (!held.ok) {
      await release();
      return held;
    }
    const rec: ReservationRecord = { customer_id: customerId, month, job_id: jobId, created_unix_ms: now, expires_unix_ms: expires, state: "held", refunded: false };
    try {
      await this.kv.create(reservationKvKey(reservationId), JSON.stringify(rec));
    } catch (err) {
      // Two calls with one proposed id at once: the other wrote the record first; the hold is the one they share.
      if (opts.reservationId !== undefined && isRevisionConflict(err)) {
        const again = await this.repeated(customerId, jobId, reservationId, cust.monthly_quota);
        if (again) return again;
      }
      // Without its record nobody can commit the reservation: give the scan back now (the reaper would, at expiry).
      await this.settleHold(customerId, month, reservationId, true).catch(() => {});
      throw err;
    }
    return { ok: true, reservationId, remaining: Math.max(0, cust.monthly_quota - held.used), month, expiresUnixMs: expires };
  }

  // A reservation's answer in the documented order (the key's earlier scan, then the quota), nothing held or claimed.
  private async check(customerId: string, quota: number, month: string, now: number, key: string | undefined, requestHash: string): Promise<ReserveResult> {
    if (key) {
      const earlier = await peekIdempotencyKey(this.kv, customerId, key, requestHash, now);
      if (earlier) return earlier;
    }
    const e = await this.kv.get(counterKvKey(customerId, month));
    const used = live(e) ? e.json<CounterRecord>().used : 0;
    if (used >= quota) return { ok: false, reason: "quota", used, quota, month };
    return { ok: true, reservationId: "", remaining: quota - used, month, expiresUnixMs: 0 };
  }

  // Exactness: the hold only lands if nobody changed the counter since we read it (update with the read revision;
  // create for the month's first scan). Losers re-read and re-check both limits, so with N scans left exactly N
  // concurrent reservations succeed, and never more than maxInFlight — nor a lane's max — are held at once.
  private async hold(
    customerId: string, quota: number, month: string, reservationId: string, expires: number, now: number, maxInFlight: number, caps: InFlightCap[],
  ) {
    const k = counterKvKey(customerId, month);
    const capped = caps.filter((c) => c.max > 0);
    // Holds made before midnight UTC on the 1st live in last month's counter for at most the longest TTL.
    const earlier: CounterRecord | undefined =
      (maxInFlight > 0 || capped.length > 0) && now - utcMonthStart(now) < MAX_RESERVATION_TTL_MS ? await this.counter(counterKvKey(customerId, previousUtcMonth(now))) : undefined;
    const inFlightOn = (cur: CounterRecord, lane?: string) => (earlier ? unexpired(earlier, now, lane) : 0) + unexpired(cur, now, lane);
    return casLoop("quota counter", async () => {
      const e = await this.kv.get(k);
      const cur: CounterRecord = live(e) ? e.json<CounterRecord>() : { used: 0 };
      // Held already: a repeated call with a proposed id, racing the first (which writes the record).
      if (cur.held && reservationId in cur.held) return { ok: true as const, used: cur.used };
      if (cur.used >= quota) return { ok: false as const, reason: "quota" as const, used: cur.used, quota, month };
      if (maxInFlight > 0) {
        const inFlight = inFlightOn(cur);
        if (inFlight >= maxInFlight) return { ok: false as const, reason: "in_flight" as const, inFlight, maxInFlight };
      }
      for (const { lane, max } of capped) {
        const inFlight = inFlightOn(cur, lane);
        if (inFlight >= max) return { ok: false as const, reason: "in_flight" as const, inFlight, maxInFlight: max, lane };
      }
      const next: CounterRecord = { used: cur.used + 1, held: { ...cur.held, [reservationId]: expires } };
      if (caps.length > 0) next.lanes = { ...cur.lanes, [reservationId]: caps.map((c) => c.lane) };
      else if (cur.lanes) next.lanes = cur.lanes;
      if (live(e)) await this.kv.update(k, JSON.stringify(next), e.revision);
      else await this.kv.create(k, JSON.stringify(next));
      return { ok: true as const, used: next.used };
    });
  }

  // The reservation a first call with this proposed id made, when it made one: held, it is the answer (the same id,
  // nothing charged again); settled, or another customer's or job's, the id cannot be used again.
  private async repeated(customerId: string, jobId: string, reservationId: string, quota: number): Promise<ReserveResult | undefined> {
    const e = await this.kv.get(reservationKvKey(reservationId));
    if (!live(e)) return undefined;
    const r = e.json<ReservationRecord>();
    if (r.customer_id !== customerId || r.job_id !== jobId || stateOf(r) !== "held" || isExpired(r, this.now())) {
      throw invalidArgument("reservation_id is already used");
    }
    const used = (await this.counter(counterKvKey(customerId, r.month)))?.used ?? 0;
    return { ok: true, reservationId, remaining: Math.max(0, quota - used), month: r.month, expiresUnixMs: r.expires_unix_ms ?? 0 };
  }

  private async counter(counterKey: string): Promise<CounterRecord | undefined> {
    const e = await this.kv.get(counterKey);
    return live(e) ? e.json<CounterRecord>() : undefined;
  }

  // True once committed, also when it already was. Past its expiry a held reservation is the reaper's: committing
  // it then refunds it instead, so an idempotency key released at expiry can never end up charged twice.
  async commit(reservationId: string): Promise<boolean> {
    const d = await this.decide(reservationId, (r, now) => (isExpired(r, now) ? "refunded" : "committed"));
    return d?.state === "committed";
  }

  // True only for the call that refunded it.
  async refund(reservationId: string): Promise<boolean> {
    const d = await this.decide(reservationId, () => "refunded");
    return !!d?.won && d.state === "refunded";
  }

  // Decides a held reservation (compare-and-swap on its record: one caller wins), then settles its hold whatever
  // the outcome, which also finishes the work of a caller that decided and crashed before settling.
  private async decide(reservationId: string, target: (r: ReservationRecord, now: number) => ReservationState) {
    if (!RESERVATION_ID.test(reservationId)) return undefined;
    const rk = reservationKvKey(reservationId);
    const d = await casLoop("reservation", async () => {
      const e = await this.kv.get(rk);
      if (!live(e)) return undefined;
      const r = e.json<ReservationRecord>();
      const state = stateOf(r);
      if (state !== "held") return { r, state, won: false };
      const next = target(r, this.now());
      await this.kv.update(rk, JSON.stringify({ ...r, state: next, refunded: next === "refunded" } satisfies ReservationRecord), e.revision);
      return { r, state: next, won: true };
    });
    if (!d) return undefined;
    if (d.r.expires_unix_ms === undefined) {
      // A reservation from before holds existed: its counter has no hold, so the winner gives the scan back directly.
      if (d.won && d.state === "refunded") await this.decrement(d.r.customer_id, d.r.month);
    } else {
      await this.settleHold(d.r.customer_id, d.r.month, reservationId, d.state === "refunded");
    }
    return d;
  }

  // Removes the hold — and for a refund gives the scan back — in one write, only while the hold is there.
  private async settleHold(customerId: string, month: string, reservationId: string, refund: boolean): Promise<boolean> {
    const k = counterKvKey(customerId, month);
    return casLoop("quota counter", async () => {
      const e = await this.kv.get(k);
      if (!live(e)) return false;
      const c = e.json<CounterRecord>();
      if (!c.held || !(reservationId in c.held)) return false;
      const held = { ...c.held };
      delete held[reservationId];
      const next: CounterRecord = { used: refund ? Math.max(0, c.used - 1) : c.used, held };
      if (c.lanes) {
        const { [reservationId]: _settled, ...lanes } = c.lanes;
        if (Object.keys(lanes).length > 0) next.lanes = lanes;
      }
      await this.kv.update(k, JSON.stringify(next), e.revision);
      return true;
    });
  }

  private async decrement(customerId: string, month: string): Promise<void> {
    const k = counterKvKey(customerId, month);
    await casLoop("quota counter", async () => {
      const e = await this.kv.get(k);
      if (!live(e)) return;
      const c = e.json<CounterRecord>();
      if (c.used <= 0) return;
      await this.kv.update(k, JSON.stringify({ ...c, used: c.used - 1 } satisfies CounterRecord), e.revision);
    });
  }

  // The reaper's step for one counter: every hold past its expiry is claimed (its record flipped held → refunded by
  // compare-and-swap; a record that was never written is created as refunded, which fails if it appears meanwhile)
  // and settled. Replicas may run this on the same counter at once: each reservation is refunded by one of them.
  // `nextExpiry`: the earliest hold left unexpired in the counter (undefined: none), when the reaper should look again.
  async reapCounter(counterKey: string): Promise<SettleResult & { nextExpiry?: number }> {
    const m = COUNTER_KEY.exec(counterKey);
    if (!m) return { refunded: 0, settled: 0 };
    const customerId = untoken(m[1]!);
    const month = m[2]!;
    const e = await this.kv.get(counterKey);
    if (!live(e)) return { refunded: 0, settled: 0 };
    const now = this.now();
    const out: SettleResult & { nextExpiry?: number } = { refunded: 0, settled: 0 };
    for (const [reservationId, exp] of Object.entries(e.json<CounterRecord>().held ?? {})) {
      if (exp > now) {
        out.nextExpiry = Math.min(out.nextExpiry ?? Infinity, exp);
        continue;
      }
      const { won, state } = await this.claimExpired(reservationId, { customer_id: customerId, month, job_id: "", created_unix_ms: now, expires_unix_ms: exp, state: "refunded", refunded: true });
      if (won) out.refunded++;
      if (await this.settleHold(customerId, month, reservationId, state === "refunded")) out.settled++;
    }
    return out;
  }

  // Claims an expired reservation for the refund; otherwise says how it was decided. That state is the one the
  // claim read (a decided state never changes), not a second read: the hold is settled — with or without giving
  // the scan back — on the very state that made this call lose.
  private async claimExpired(reservationId: string, orphan: ReservationRecord): Promise<{ won: boolean; state: ReservationState }> {
    const rk = reservationKvKey(reservationId);
    return casLoop("reservation", async () => {
      const e = await this.kv.get(rk);
      if (!live(e)) {
        // Fails with a revision conflict if the record was written meanwhile (by its reserve or another reaper):
        // the loop then decides on what is there.
        await this.kv.create(rk, JSON.stringify(orphan));
        return { won: true, state: "refunded" as const };
      }
      const r = e.json<ReservationRecord>();
      const state = stateOf(r);
      if (state !== "held") return { won: false, state };
      await this.kv.update(rk, JSON.stringify({ ...r, state: "refunded", refunded: true } satisfies ReservationRecord), e.revision);
      return { won: true, state: "refunded" as const };
    });
  }

  // Follows every counter (last values first, then each change) and reports each one's earliest hold expiry
  // (undefined: nothing held), so a reaper need not list the bucket on every sweep.
  async watchHolds(onChange: (counterKey: string, earliestExpiry: number | undefined) => void): Promise<{ stop(): void; done: Promise<void> }> {
    const it = await this.kv.watch({ key: "u.>" });
    const done = (async () => {
      for await (const e of it) {
        if (e.operation !== "PUT" || e.length === 0) {
          onChange(e.key, undefined);
          continue;
        }
        const exps = Object.values(e.json<CounterRecord>().held ?? {});
        onChange(e.key, exps.length ? Math.min(...exps) : undefined);
      }
    })();
    return { stop: () => it.stop(), done };
  }

  // Every uncommitted reservation of this and last month (for operators and the chaos checks).
  async listHeld(): Promise<HeldReservation[]> {
    const now = this.now();
    const out: HeldReservation[] = [];
    for (const month of [previousUtcMonth(now), utcMonth(now)]) {
      for await (const k of await this.kv.keys(`u.*.${month}`)) {
        const m = COUNTER_KEY.exec(k);
        const e = await this.kv.get(k);
        if (!m || !live(e)) continue;
        for (const [reservationId, exp] of Object.entries(e.json<CounterRecord>().held ?? {})) {
          out.push({ reservationId, customerId: untoken(m[1]!), month, expiresUnixMs: exp });
        }
      }
    }
    return out;
  }
}
