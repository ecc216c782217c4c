import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { startNatsServer } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CUSTOMERS_BUCKET, KEYS_BUCKET, QUOTA_BUCKET } from "@cva/platform";
import { DEFAULT_MONTHLY_QUOTA, createAuthStore } from "../src/store.ts";

let nats: Awaited<ReturnType<typeof startNatsServer>>;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

// Every value of every auth bucket, as text, to prove what is (not) stored.
async function allValues(): Promise<string> {
  const kvm = new Kvm(nc);
  let text = "";
  for (const b of [KEYS_BUCKET, CUSTOMERS_BUCKET, QUOTA_BUCKET]) {
    const kv = await kvm.open(b);
    for await (const k of await kv.keys()) {
      const e = await kv.get(k);
      text += `${k}=${e?.string() ?? ""}\n`;
    }
  }
  return text;
}

describe("API keys", () => {
  it("creates, authenticates and revokes a key (by key and by key id)", async () => {
    const store = await createAuthStore(nc);
    const a = await store.createKey("acme");
    expect(a.apiKey).toMatch(/^cva_[A-Za-z0-9_-]{43}$/);
    expect(a.customer).toMatchObject({ customerId: "acme", monthlyQuota: DEFAULT_MONTHLY_QUOTA, usedThisMonth: 0 });
    expect(await store.authenticate(a.apiKey)).toEqual({ customerId: "acme", keyId: a.key.keyId });

    const b = await store.createKey("acme");
    expect(b.key.keyId).not.toBe(a.key.keyId);

    expect(await store.authenticate("")).toBeUndefined();
    expect(await store.authenticate(a.apiKey + "x")).toBeUndefined();
    expect(await store.authenticate("cva_" + "A".repeat(43))).toBeUndefined();

    expect((await store.revokeKey(a.apiKey))?.revoked).toBe(true);
    expect(await store.authenticate(a.apiKey)).toBeUndefined();
    expect(await store.authenticate(b.apiKey)).toBeDefined();

    expect((await store.revokeKey(b.key.keyId))?.keyId).toBe(b.key.keyId);
    expect(await store.authenticate(b.apiKey)).toBeUndefined();
    expect(await store.revokeKey("key_000000000000")).toBeUndefined();
    expect(await store.revokeKey("nonsense")).toBeUndefined();

    const listed = await store.listKeys("acme");
    expect(listed.keys.map((k) => k.keyId).sort()).toEqual([a.key.keyId, b.key.keyId].sort());
    expect(listed.keys.every((k) => k.revoked)).toBe(true);
    expect(listed.customers).toHaveLength(1);
  });

  it("stores only digests: the plaintext appears in no KV value or key", async () => {
    const store = await createAuthStore(nc);
    const { apiKey } = await store.createKey("digest-check");
    const secretPart = apiKey.slice(4);
    const text = await allValues();
    expect(text).toContain("digest-check");
    expect(text).not.toContain(secretPart);
    expect(text).not.toContain(Buffer.from(apiKey).toString("base64"));
  });

  it("encodes arbitrary customer ids into KV-safe keys", async () => {
    const store = await createAuthStore(nc);
    const id = "weird.customer >* with spaces/ü";
    const { apiKey } = await store.createKey(id, 3);
    expect(await store.authenticate(apiKey)).toMatchObject({ customerId: id });
    expect(await store.getCustomer(id)).toMatchObject({ customerId: id, monthlyQuota: 3 });
    expect((await store.listKeys()).customers.map((c) => c.customerId)).toContain(id);
  });

  it("validates input", async () => {
    const store = await createAuthStore(nc);
    await expect(store.createKey("")).rejects.toMatchObject({ kind: "invalid_argument" });
    await expect(store.createKey("x", -1)).rejects.toMatchObject({ kind: "invalid_argument" });
    await expect(store.setQuota("nobody-here", 5)).rejects.toMatchObject({ kind: "not_found" });
    expect(await store.getCustomer("nobody-here")).toBeUndefined();
  });

  it("keeps the quota when a key is added without one, replaces it when given", async () => {
    const store = await createAuthStore(nc, { defaultMonthlyQuota: 42 });
    expect((await store.createKey("q-cust")).customer.monthlyQuota).toBe(42);
    expect((await store.setQuota("q-cust", 7)).monthlyQuota).toBe(7);
    expect((await store.createKey("q-cust")).customer.monthlyQuota).toBe(7);
    expect((await store.createKey("q-cust", 9)).customer.monthlyQuota).toBe(9);
  });
});

describe("monthly quota", () => {
  it("is exact under concurrency: 20 concurrent reservations, 7 left → exactly 7 succeed", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("busy", 7);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.reserve("busy", `job-${i}`)));
    const ok = results.filter((r) => r.ok);
    expect(ok).toHaveLength(7);
    expect(new Set(ok.map((r) => (r.ok ? r.reservationId : ""))).size).toBe(7);
    expect(ok.map((r) => (r.ok ? r.remaining : -1)).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect((await store.getCustomer("busy"))?.usedThisMonth).toBe(7);
    expect((await store.reserve("busy", "late")).ok).toBe(false);
  });

  it("is exact across several store instances (several auth replicas)", async () => {
    const stores = await Promise.all([createAuthStore(nc), createAuthStore(nc), createAuthStore(nc)]);
    await stores[0].createKey("replicated", 5);
    const results = await Promise.all(Array.from({ length: 15 }, (_, i) => stores[i % 3].reserve("replicated", `j${i}`)));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
  });

  it("refunds a reservation exactly once", async () => {
    const store = await createAuthStore(nc);
    await store.createKey("refunder", 2);
    const r1 = await store.reserve("refunder", "a");
    const r2 = await store.reserve("refunder", "b");
    expect(r1.ok && r2.ok).toBe(true);
    expect((await store.reserve("refunder", "c")).ok).toBe(false);
    if (!r1.ok) throw new Error("unreachable");
    const refunds = await Promise.all([store.refund(r1.reservationId), store.refund(r1.reservationId), store.refund(r1.reservationId)]);
    expect(refunds.filter(Boolean)).toHaveLength(1);
    expect(await store.refund(r1.reservationId)).toBe(false);
    expect(await store.refund("unknown-reservation-id")).toBe(false);
    expect(await store.refund("bad id.*")).toBe(false);
    expect((await store.getCustomer("refunder"))?.usedThisMonth).toBe(1);
    expect((await store.reserve("refunder", "d")).ok).toBe(true);
    expect((await store.reserve("refunder", "e")).ok).toBe(false);
  });

  it("starts afresh each UTC calendar month", async () => {
    let t = Date.UTC(2031, 0, 31, 23, 59, 59, 999);
    const store = await createAuthStore(nc, { now: () => t });
    await store.createKey("monthly", 2);
    expect((await store.reserve("monthly", "1")).ok).toBe(true);
    const r2 = await store.reserve("monthly", "2");
    const r3 = await store.reserve("monthly", "3");
    expect(r2.ok).toBe(true);
    expect(r3).toMatchObject({ ok: false, used: 2, quota: 2, month: "2031-01" });

    t = Date.UTC(2031, 1, 1, 0, 0, 0, 0);
    expect(await store.getCustomer("monthly")).toMatchObject({ usedThisMonth: 0, month: "2031-02" });
    expect(await store.reserve("monthly", "4")).toMatchObject({ ok: true, remaining: 1, month: "2031-02" });
    // A refund of January's reservation gives back January's scan, not February's.
    if (!r2.ok) throw new Error("unreachable");
    expect(await store.refund(r2.reservationId)).toBe(true);
    expect((await store.getCustomer("monthly"))?.usedThisMonth).toBe(1);
  });

  it("refuses reservations for an unknown customer", async () => {
    const store = await createAuthStore(nc);
    await expect(store.reserve("ghost", "j")).rejects.toMatchObject({ kind: "not_found" });
  });

  it("sets the quota bucket's retention and single-value history", async () => {
    const kv = await new Kvm(nc).open(QUOTA_BUCKET);
    const st = await kv.status();
    expect(st.history).toBe(1);
    expect(st.ttl).toBeGreaterThan(62 * 24 * 3600 * 1000);
  });
});

describe("configuration", () => {
  it("reads DEFAULT_MONTHLY_QUOTA (10 000 when unset) and refuses nonsense", async () => {
    const { defaultMonthlyQuotaFromEnv } = await import("../src/store.ts");
    expect(defaultMonthlyQuotaFromEnv({})).toBe(10_000);
    expect(defaultMonthlyQuotaFromEnv({ DEFAULT_MONTHLY_QUOTA: "250" })).toBe(250);
    expect(() => defaultMonthlyQuotaFromEnv({ DEFAULT_MONTHLY_QUOTA: "lots" })).toThrow(/DEFAULT_MONTHLY_QUOTA/);
    expect(() => defaultMonthlyQuotaFromEnv({ DEFAULT_MONTHLY_QUOTA: "0" })).toThrow(/DEFAULT_MONTHLY_QUOTA/);
  });
});
