// Reservations that settle themselves (commit, refund, the reaper), per-customer in-flight caps and idempotency
// keys, against a real nats-server. Expiry is real time with short TTLs; every wait polls for its evidence with a
// bound.
import { Kvm, type KV } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { connectNats, QUOTA_BUCKET } from "@cva/platform";
import { startNatsServer, until } from "@cva/platform/testing/index.ts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startReservationReaper, type ReservationReaper } from "../src/reaper.ts";
import { createAuthStore, type AuthStore } from "../src/store.ts";
import { IDEMPOTENCY_WINDOW_MS } from "../src/idempotency.ts";
import { utcMonth } from "../src/encode.ts";
import { counterKvKey } from "../src/reservations.ts";
import type { CounterRecord, ReservationRecord } from "../src/types.ts";

let nats: Awaited<ReturnType<typeof startNatsServer>>;
let nc: NatsConnection;
let nc2: NatsConnection;
let quota: KV;
const reapers: ReservationReaper[] = [];

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  nc2 = await connect({ servers: nats.url });
  await createAuthStore(nc);
  quota = await new Kvm(nc).open(QUOTA_BUCKET);
});

// Each test's reapers stop with it: a reaper left running would be one more (uncounted) replica in the next test.
afterEach(async () => {
  for (const r of reapers.splice(0)) await r.stop();
});

afterAll(async () => {
  await nc?.close();
  await nc2?.close();
  await nats?.stop();
});

const HASH = "h".repeat(43);
const used = async (store: AuthStore, customer: string) => (await store.getCustomer(customer))!.usedThisMonth;

async function reaper(store: AuthStore, intervalMs: number, resyncEvery?: number): Promise<ReservationReaper> {
  const r = await startReservationReaper(store, { intervalMs, resyncEvery });
  reapers.push(r);
  return r;
}

function reserved(r: Awaited<ReturnType<AuthStore["reserve"]>>) {
  if (!r.ok) throw new Error(`not reserved: ${JSON.stringify(r)}`);
  return r;
}

describe("the reaper", () => {
  it("refunds a reservation never committed once its TTL has passed, and leaves no hold behind", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("abandoned", 10);
    await reaper(store, 100);
    // Long enough that the two reads below come before the expiry on a stalled machine.
    const r = reserved(await store.reserve("abandoned", "job-lost", { ttlMs: 1500 }));
    expect(await used(store, "abandoned")).toBe(1);
    expect((await store.listHeld()).map((h) => h.reservationId)).toContain(r.reservationId);

    const after = await until("the reaper's refund", () => used(store, "abandoned"), (n) => n === 0);
    expect(after).toBe(0);
    // Not before its expiry: the counter could only drop once the TTL had passed.
    expect(Date.now()).toBeGreaterThanOrEqual(r.expiresUnixMs);
    expect((await store.listHeld()).some((h) => h.reservationId === r.reservationId)).toBe(false);
    // Refunded for good: the edge's late refund or commit changes nothing.
    expect(await store.refund(r.reservationId)).toBe(false);
    expect(await store.commit(r.reservationId)).toBe(false);
    expect(await used(store, "abandoned")).toBe(0);
  });

  it("two reapers (two replicas) racing each other and the edge's refund give each scan back once", async () => {
    const a = await createAuthStore(nc);
    const b = await createAuthStore(nc2);
    await a.createKey("raced", 20);
    // Long intervals: the sweeps below are the only ones, run at the same moment on both replicas. The TTL leaves six
    // reserves and a commit time before the expiry on a stalled machine.
    const ra = await reaper(a, 3_600_000);
    const rb = await reaper(b, 3_600_000);
    const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => a.reserve("raced", `job-${i}`, { ttlMs: 1500 }).then(reserved)));
    const committed = rs[5]!;
    expect(await a.commit(committed.reservationId)).toBe(true);
    expect(await used(a, "raced")).toBe(6);
    await until("expiry", async () => Date.now(), (t) => rs.every((r) => t > r.expiresUnixMs));

    let refunded = 0;
    let edgeRefunds = 0;
    const final = await until(
      "both reapers to settle every expired hold",
      async () => {
        const [x, y, z] = await Promise.all([ra.sweep(), rb.sweep(), a.refund(rs[0]!.reservationId)]);
        refunded += x.refunded + y.refunded;
        if (z) edgeRefunds++;
        return (await a.listHeld()).filter((h) => h.customerId === "raced").length;
      },
      (n) => n === 0,
    );
    expect(final).toBe(0);
    expect(refunded + edgeRefunds).toBe(5);
    expect(await used(a, "raced")).toBe(1);
    // Nothing left to do: more sweeps refund nothing.
    const again = await Promise.all([ra.sweep(), rb.sweep()]);
    expect(again.reduce((s, x) => s + x.refunded, 0)).toBe(0);
    expect(await used(a, "raced")).toBe(1);
  });

  it("never refunds a committed reservation; a commit after expiry refunds it instead (that scan is free)", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("committer", 10);
    // A minute: the commit that follows must not race the expiry on a stalled machine.
    const kept = reserved(await store.reserve("committer", "kept", { ttlMs: 60_000 }));
    expect(await store.commit(kept.reservationId)).toBe(true);
    expect(await store.commit(kept.reservationId)).toBe(true);
    expect(await store.refund(kept.reservationId)).toBe(false);
    // Committed, but its hold still in the counter: what a crash between deciding and settling leaves.
    const crashed = reserved(await store.reserve("committer", "crashed", { ttlMs: 300 }));
    const e = (await quota.get(`r.${crashed.reservationId}`))!;
    await quota.update(`r.${crashed.reservationId}`, JSON.stringify({ ...e.json<ReservationRecord>(), state: "committed" }), e.revision);
    const late = reserved(await store.reserve("committer", "late", { ttlMs: 200 }));
    await until("expiry", async () => Date.now(), (t) => t > Math.max(crashed.expiresUnixMs, late.expiresUnixMs));
    expect(await store.commit(late.reservationId)).toBe(false);
    expect(await used(store, "committer")).toBe(2);

    await reaper(store, 50);
    await until("the reaper to settle the crashed commit's hold", async () => (await store.listHeld()).filter((h) => h.customerId === "committer").length, (n) => n === 0);
    expect(await used(store, "committer")).toBe(2);
  });

  it("works with the auth service's own NATS permissions (no change to them needed)", async () => {
    const locked = await startNatsServer({ users: true });
    const authNc = await connectNats(locked.url, "auth", { auth: locked.authFor("auth") });
    try {
      const store = await createAuthStore(authNc);
      await store.createKey("as-auth", 5);
      // The watch alone must find the hold: no listing within the test's time.
      await reaper(store, 50, 1_000_000);
      reserved(await store.reserve("as-auth", "j", { ttlMs: 200, idempotencyKey: "k", requestHash: HASH, maxInFlight: 1 }));
      await until("the refund", () => used(store, "as-auth"), (n) => n === 0);
      expect(locked.log.filter((l) => /Violation/.test(l))).toEqual([]);
    } finally {
      for (const r of reapers.splice(0)) await r.stop();
      await authNc.close();
      await locked.stop();
    }
  });

  it("finds expired holds by listing them now and then, should its watch miss them", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("unwatched", 10);
    // A watch that never reports anything: only the periodic listing can find the hold.
    const blind: AuthStore = Object.assign(Object.create(store) as AuthStore, {
      watchHolds: async () => ({ stop() {}, done: new Promise<void>(() => {}) }),
    });
    const r = await startReservationReaper(blind, { intervalMs: 50, resyncEvery: 3 });
    reapers.push(r);
    reserved(await store.reserve("unwatched", "j", { ttlMs: 200 }));
    await until("the listed hold's refund", () => used(store, "unwatched"), (n) => n === 0);
  });

  it("refunds a hold whose reservation record was never written (its auth replica died in between)", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("orphan", 10);
    const r = reserved(await store.reserve("orphan", "j", { ttlMs: 200 }));
    await quota.purge(`r.${r.reservationId}`);
    const rr = await reaper(store, 50);
    await until("the orphan's refund", () => used(store, "orphan"), (n) => n === 0);
    expect(await store.refund(r.reservationId)).toBe(false);
    await rr.sweep();
    expect(await used(store, "orphan")).toBe(0);
  });

  it("finishes a refund decided by a caller that died before giving the scan back", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("half-done", 10);
    const r = reserved(await store.reserve("half-done", "j", { ttlMs: 60_000 }));
    // The record says refunded, the counter still holds and counts it: exactly what a crash between the two leaves.
    const e = (await quota.get(`r.${r.reservationId}`))!;
    await quota.update(`r.${r.reservationId}`, JSON.stringify({ ...e.json<ReservationRecord>(), state: "refunded", refunded: true }), e.revision);
    expect(await used(store, "half-done")).toBe(1);
    const results = await Promise.all([store.refund(r.reservationId), store.refund(r.reservationId), store.commit(r.reservationId)]);
    expect(results).toEqual([false, false, false]);
    expect(await used(store, "half-done")).toBe(0);
  });
});

describe("in-flight cap", () => {
  it("holds at most max_in_flight uncommitted reservations per customer, across replicas, without charging the refused", async () => {
    const stores = [await createAuthStore(nc), await createAuthStore(nc2)];
    await stores[0]!.createKey("capped", 100);
    await stores[0]!.createKey("neighbour", 100);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => stores[i % 2]!.reserve("capped", `j${i}`, { maxInFlight: 2 })));
    const ok = results.filter((r) => r.ok);
    expect(ok).toHaveLength(2);
    expect(results.filter((r) => !r.ok && r.reason === "in_flight")).toHaveLength(6);
    expect(results.find((r) => !r.ok)).toMatchObject({ reason: "in_flight", inFlight: 2, maxInFlight: 2 });
    expect(await used(stores[0]!, "capped")).toBe(2);
    // Another customer is not affected.
    expect((await stores[0]!.reserve("neighbour", "n", { maxInFlight: 2 })).ok).toBe(true);
    // A committed or refunded scan frees its place.
    expect(await stores[1]!.commit(reserved(ok[0]!).reservationId)).toBe(true);
    expect((await stores[0]!.reserve("capped", "after-commit", { maxInFlight: 2 })).ok).toBe(true);
    expect((await stores[0]!.reserve("capped", "still-full", { maxInFlight: 2 })).ok).toBe(false);
    expect(await stores[0]!.refund(reserved(ok[1]!).reservationId)).toBe(true);
    expect((await stores[0]!.reserve("capped", "after-refund", { maxInFlight: 2 })).ok).toBe(true);
  });

  it("caps each lane on its own, exactly across replicas; a scan counts on every lane it runs on", async () => {
    const stores = [await createAuthStore(nc), await createAuthStore(nc2)];
    await stores[0]!.createKey("lanes", 100);
    const TAG = [{ lane: "tag", max: 2 }];
    const ZIP = [{ lane: "zip", max: 2 }, { lane: "tag", max: 2 }];
    const VAST = [{ lane: "vast", max: 2 }, { lane: "media", max: 1 }];
    // Eight concurrent tag reservations on two replicas: exactly two hold.
    const tags = await Promise.all(Array.from({ length: 8 }, (_, i) => stores[i % 2]!.reserve("lanes", `t${i}`, { inFlightCaps: TAG })));
    expect(tags.filter((r) => r.ok)).toHaveLength(2);
    expect(tags.find((r) => !r.ok)).toMatchObject({ reason: "in_flight", inFlight: 2, maxInFlight: 2, lane: "tag" });
    // A zip renders on the tag lane, which is full; a VAST runs on other lanes and is served.
    expect(await stores[0]!.reserve("lanes", "z", { inFlightCaps: ZIP })).toMatchObject({ ok: false, reason: "in_flight", lane: "tag" });
    const vast = reserved(await stores[1]!.reserve("lanes", "v", { inFlightCaps: VAST }));
    expect(await stores[0]!.reserve("lanes", "v2", { inFlightCaps: VAST })).toMatchObject({ ok: false, lane: "media", maxInFlight: 1 });
    // Settling a tag scan frees its place on the tag lane, so the zip now holds — and takes that place.
    const [t0, t1] = tags.filter((r) => r.ok).map((r) => reserved(r).reservationId);
    expect(await stores[1]!.commit(t0!)).toBe(true);
    expect((await stores[0]!.reserve("lanes", "z2", { inFlightCaps: ZIP })).ok).toBe(true);
    expect(await stores[0]!.reserve("lanes", "t-full", { inFlightCaps: TAG })).toMatchObject({ ok: false, lane: "tag" });
    expect(await stores[0]!.refund(t1!)).toBe(true);
    expect((await stores[0]!.reserve("lanes", "t-after", { inFlightCaps: TAG })).ok).toBe(true);
    expect(await stores[0]!.refund(vast.reservationId)).toBe(true);
    // Refused reservations are not charged: five reserved (t0, t1, v, z2, t-after), two of them refunded.
    expect(await used(stores[0]!, "lanes")).toBe(3);
    // Settled holds leave no lane entry behind.
    const counter = (await quota.get(counterKvKey("lanes", utcMonth(Date.now()))))!.json<CounterRecord>();
    expect(Object.keys(counter.lanes ?? {}).sort()).toEqual(Object.keys(counter.held ?? {}).sort());
  });

  it("counts a hold made without lanes (an older edge's) on every lane", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("mixed-lanes", 100);
    reserved(await store.reserve("mixed-lanes", "old", {}));
    expect(await store.reserve("mixed-lanes", "new", { inFlightCaps: [{ lane: "media", max: 1 }] })).toMatchObject({ ok: false, lane: "media", inFlight: 1 });
    expect((await store.reserve("mixed-lanes", "wide", { inFlightCaps: [{ lane: "media", max: 2 }] })).ok).toBe(true);
  });

  it("refuses malformed lanes", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("bad-lanes", 100);
    await expect(store.reserve("bad-lanes", "j", { inFlightCaps: [{ lane: "Tag.usa", max: 1 }] })).rejects.toThrow(/in_flight_caps: a lane is/);
    await expect(store.reserve("bad-lanes", "j", { inFlightCaps: [{ lane: "tag", max: -1 }] })).rejects.toThrow(/max must be a non-negative integer/);
    await expect(store.reserve("bad-lanes", "j", { inFlightCaps: [{ lane: "tag", max: 1 }, { lane: "tag", max: 2 }] })).rejects.toThrow(/each lane once/);
    expect(await used(store, "bad-lanes")).toBe(0);
  });

  it("does not count holds past their expiry", async () => {
    // The store's clock, moved by hand: a real 150 ms expiry could pass before the second reserve on a stalled machine.
    let t = Date.now();
    const store = await createAuthStore(nc, { now: () => t });
    await store.createKey("stale-holds", 100);
    const r = reserved(await store.reserve("stale-holds", "a", { ttlMs: 150, maxInFlight: 1 }));
    expect((await store.reserve("stale-holds", "b", { maxInFlight: 1 })).ok).toBe(false);
    t = r.expiresUnixMs + 1;
    expect((await store.reserve("stale-holds", "c", { maxInFlight: 1 })).ok).toBe(true);
  });

  it("counts last month's holds in the first hour of a month", async () => {
    let t = Date.UTC(2032, 2, 31, 23, 59, 59, 0);
    const store = await createAuthStore(nc, { now: () => t });
    await store.createKey("midnight", 100);
    reserved(await store.reserve("midnight", "march", { ttlMs: 60_000, maxInFlight: 1 }));
    t = Date.UTC(2032, 3, 1, 0, 0, 10, 0);
    expect(await store.reserve("midnight", "april", { maxInFlight: 1 })).toMatchObject({ ok: false, reason: "in_flight" });
    t = Date.UTC(2032, 3, 1, 0, 1, 0, 0);
    expect((await store.reserve("midnight", "april", { maxInFlight: 1 })).ok).toBe(true);
  });
});

describe("idempotency keys", () => {
  it("answers a retry with the first job, running then done, charged once; another request with the key is a conflict", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("idem", 10);
    const first = reserved(await store.reserve("idem", "job-1", { idempotencyKey: "order-42", requestHash: HASH }));
    expect(await store.reserve("idem", "job-2", { idempotencyKey: "order-42", requestHash: HASH })).toEqual({
      ok: false,
      reason: "replay",
      replay: "running",
      jobId: "job-1",
      reservationId: first.reservationId,
    });
    expect(await store.reserve("idem", "job-3", { idempotencyKey: "order-42", requestHash: "x".repeat(43) })).toEqual({ ok: false, reason: "key_conflict" });
    expect(await store.commit(first.reservationId)).toBe(true);
    expect(await store.reserve("idem", "job-4", { idempotencyKey: "order-42", requestHash: HASH })).toEqual({ ok: false, reason: "replay", replay: "done", jobId: "job-1" });
    expect(await used(store, "idem")).toBe(1);
    // Keys are per customer.
    await store.createKey("idem-other", 10);
    expect((await store.reserve("idem-other", "job-5", { idempotencyKey: "order-42", requestHash: HASH })).ok).toBe(true);
  });

  it("concurrent first requests with one key: one reservation, the rest see it running", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("idem-burst", 10);
    const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => store.reserve("idem-burst", `job-${i}`, { idempotencyKey: "burst", requestHash: HASH })));
    const ok = rs.filter((r) => r.ok);
    expect(ok).toHaveLength(1);
    const winner = rs.findIndex((r) => r.ok);
    const reservationId = (rs[winner] as { reservationId: string }).reservationId;
    expect(rs.filter((r) => !r.ok)).toEqual(Array(5).fill({ ok: false, reason: "replay", replay: "running", jobId: `job-${winner}`, reservationId }));
    expect(await used(store, "idem-burst")).toBe(1);
  });

  it("a failed (refunded) or refused scan does not pin its key", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("idem-fail", 1);
    const first = reserved(await store.reserve("idem-fail", "job-1", { idempotencyKey: "k", requestHash: HASH }));
    expect(await store.refund(first.reservationId)).toBe(true);
    // Runs again, even with another request: nothing is bound to the key after a failure.
    const second = reserved(await store.reserve("idem-fail", "job-2", { idempotencyKey: "k", requestHash: "y".repeat(43) }));
    expect(await store.commit(second.reservationId)).toBe(true);
    // Over quota: refused, and the key is not left claimed (no "running" for a scan that never started).
    expect(await store.reserve("idem-fail", "job-3", { idempotencyKey: "k2", requestHash: HASH })).toMatchObject({ ok: false, reason: "quota" });
    await store.setQuota("idem-fail", 2);
    expect((await store.reserve("idem-fail", "job-4", { idempotencyKey: "k2", requestHash: HASH })).ok).toBe(true);
  });

  it("releases a key whose scan expired uncommitted, and forgets keys after 24 h", async () => {
    let t = Date.UTC(2033, 5, 10, 12, 0, 0, 0);
    const store = await createAuthStore(nc, { now: () => t });
    await store.createKey("idem-time", 10);
    reserved(await store.reserve("idem-time", "job-1", { idempotencyKey: "k", requestHash: HASH, ttlMs: 1000 }));
    t += 1001;
    const second = reserved(await store.reserve("idem-time", "job-2", { idempotencyKey: "k", requestHash: HASH }));
    expect(await store.commit(second.reservationId)).toBe(true);
    t += IDEMPOTENCY_WINDOW_MS - 1;
    expect(await store.reserve("idem-time", "job-3", { idempotencyKey: "k", requestHash: HASH })).toMatchObject({ replay: "done", jobId: "job-2" });
    t += 1;
    expect((await store.reserve("idem-time", "job-4", { idempotencyKey: "k", requestHash: "z".repeat(43) })).ok).toBe(true);
  });

  it("validates keys, hashes, TTLs and caps", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("idem-bad", 10);
    for (const idempotencyKey of ["x".repeat(256), "tab\there", "ünï"]) {
      await expect(store.reserve("idem-bad", "j", { idempotencyKey, requestHash: HASH })).rejects.toMatchObject({ kind: "invalid_argument" });
    }
    await expect(store.reserve("idem-bad", "j", { idempotencyKey: "ok" })).rejects.toMatchObject({ kind: "invalid_argument" });
    await expect(store.reserve("idem-bad", "j", { ttlMs: 3_600_001 })).rejects.toMatchObject({ kind: "invalid_argument" });
    await expect(store.reserve("idem-bad", "j", { maxInFlight: -1 })).rejects.toMatchObject({ kind: "invalid_argument" });
    expect(await used(store, "idem-bad")).toBe(0);
    // Any printable ASCII, '.', '*', '>' and spaces included.
    expect((await store.reserve("idem-bad", "j", { idempotencyKey: " a.b*c>d ~", requestHash: HASH })).ok).toBe(true);
  });
});

describe("check only (a request the edge refuses at its own count)", () => {
  it("answers replay, conflict and quota as a reservation would, holding, charging and claiming nothing", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("checker", 2);
    const caps = [{ lane: "tag", max: 1 }];
    const first = reserved(await store.reserve("checker", "job-1", { idempotencyKey: "k", requestHash: HASH, inFlightCaps: caps }));
    // The lane is full, yet a check neither holds nor is refused by it: the caller refuses the request itself.
    expect(await store.reserve("checker", "job-2", { checkOnly: true, inFlightCaps: caps })).toMatchObject({ ok: true, reservationId: "", remaining: 1 });
    expect(await store.reserve("checker", "job-3", { checkOnly: true, idempotencyKey: "k", requestHash: HASH })).toMatchObject({ replay: "running", jobId: "job-1" });
    expect(await store.reserve("checker", "job-3", { checkOnly: true, idempotencyKey: "k", requestHash: "x".repeat(43) })).toEqual({ ok: false, reason: "key_conflict" });
    // A key checked is not claimed: a real request with it reserves afterwards.
    expect((await store.reserve("checker", "job-4", { checkOnly: true, idempotencyKey: "fresh", requestHash: HASH })).ok).toBe(true);
    expect(await used(store, "checker")).toBe(1);
    expect(await store.commit(first.reservationId)).toBe(true);
    const second = reserved(await store.reserve("checker", "job-5", { idempotencyKey: "fresh", requestHash: HASH, inFlightCaps: caps }));
    expect(second.reservationId).not.toBe("");
    expect(await store.reserve("checker", "job-6", { checkOnly: true })).toMatchObject({ ok: false, reason: "quota", quota: 2 });
    expect(await used(store, "checker")).toBe(2);
  });
});

describe("a reservation id proposed by the caller", () => {
  const RID = "Prop0sedReservation_id-24";

  it("reserves once: a repeated call (its first answer lost) answers the same reservation and charges nothing more", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("proposer", 10);
    const caps = [{ lane: "tag", max: 2 }];
    const first = reserved(await store.reserve("proposer", "job-p", { reservationId: RID, inFlightCaps: caps }));
    expect(first.reservationId).toBe(RID);
    const again = reserved(await store.reserve("proposer", "job-p", { reservationId: RID, inFlightCaps: caps }));
    expect(again.reservationId).toBe(RID);
    expect(await used(store, "proposer")).toBe(1);
    // The cap counts it once: one more fits, a third does not.
    reserved(await store.reserve("proposer", "job-q", { inFlightCaps: caps }));
    expect((await store.reserve("proposer", "job-r", { inFlightCaps: caps })).ok).toBe(false);
    // The caller that lost the answer can refund it by the id it chose.
    expect(await store.refund(RID)).toBe(true);
    expect(await used(store, "proposer")).toBe(1);
  });

  it("two calls with one id at once hold one reservation, with its idempotency key", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("racer", 10);
    const rid = "Racing_reservation_id_0024";
    const opts = { reservationId: rid, idempotencyKey: "race-1", requestHash: HASH, inFlightCaps: [{ lane: "tag", max: 1 }] };
    const [a, b] = await Promise.all([store.reserve("racer", "job-race", opts), store.reserve("racer", "job-race", opts)]);
    expect(reserved(a).reservationId).toBe(rid);
    expect(reserved(b).reservationId).toBe(rid);
    expect(await used(store, "racer")).toBe(1);
    expect(await store.commit(rid)).toBe(true);
    expect(await used(store, "racer")).toBe(1);
    const replay = await store.reserve("racer", "job-other", { idempotencyKey: "race-1", requestHash: HASH });
    expect(replay).toMatchObject({ ok: false, reason: "replay", replay: "done", jobId: "job-race" });
  });

  it("refuses an id that is short, another job's or already settled", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("reuser", 10);
    await expect(store.reserve("reuser", "job-s", { reservationId: "short" })).rejects.toThrow(/reservation_id must be 24–64 base64url characters/);
    const rid = "Settled_reservation_id_024";
    reserved(await store.reserve("reuser", "job-s", { reservationId: rid }));
    await expect(store.reserve("reuser", "job-t", { reservationId: rid })).rejects.toThrow(/reservation_id is already used/);
    await expect(store.reserve("proposer", "job-s", { reservationId: rid })).rejects.toThrow(/reservation_id is already used/);
    expect(await store.commit(rid)).toBe(true);
    await expect(store.reserve("reuser", "job-s", { reservationId: rid })).rejects.toThrow(/reservation_id is already used/);
    expect(await used(store, "reuser")).toBe(1);
  });
});
