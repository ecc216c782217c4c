import type { KV } from "@nats-io/kv";
import { CUSTOMERS_BUCKET, invalidArgument, KEYS_BUCKET, notFound, QUOTA_BUCKET, replicatedKvm } from "@cva/platform";
import type { NatsConnection } from "@nats-io/transport-node";
import { casLoop } from "./cas.ts";
import { token, untoken, utcMonth } from "./encode.ts";
import { KEY_ID_PATTERN, digestKey, generateApiKey, generateKeyId, sameDigest } from "./keys.ts";
import { openLedgerKv, type LedgerKv } from "./ledger-kv.ts";
import { live } from "./reservation-record.ts";
import { DEFAULT_RESERVATION_TTL_MS, ReservationLedger, counterKvKey, type SettleResult } from "./reservations.ts";
import type {
  ApiKeyInfo,
  CounterRecord,
  CustomerInfo,
  CustomerRecord,
  HeldReservation,
  KeyRecord,
  ReserveOptions,
  ReserveResult,
} from "./types.ts";

// Scans per UTC calendar month for a customer created without an explicit quota (README: DEFAULT_MONTHLY_QUOTA).
export const DEFAULT_MONTHLY_QUOTA = 10_000;

// DEFAULT_MONTHLY_QUOTA from the environment (validated), for every process that creates keys: the auth service,
// the keys CLI and `npm start`'s development key should all agree on it.
export function defaultMonthlyQuotaFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.DEFAULT_MONTHLY_QUOTA;
  if (v === undefined || v === "") return DEFAULT_MONTHLY_QUOTA;
  if (!/^\d+$/.test(v) || Number(v) === 0 || !Number.isSafeInteger(Number(v))) {
    throw new Error(`DEFAULT_MONTHLY_QUOTA must be a positive integer (got ${JSON.stringify(v)})`);
  }
  return Number(v);
}

// Counters and reservations are only needed for the month they belong to (plus refunds that arrive minutes later);
// the bucket's max_age drops them after ~3 months instead of letting them accumulate forever.
export const QUOTA_RETENTION_MS = 100 * 24 * 3600 * 1000;

const MAX_CUSTOMER_ID = 200;
const MAX_API_KEY = 256;

export interface AuthStoreOptions {
  defaultMonthlyQuota?: number;
  // Lifetime of a reservation whose caller names none (README: RESERVATION_TTL_MS).
  reservationTtlMs?: number;
  // Injected clock (ms since epoch) so tests can cross a month boundary.
  now?: () => number;
}

export interface AuthStore {
  authenticate(apiKey: string): Promise<{ customerId: string; keyId: string } | undefined>;
  createKey(customerId: string, monthlyQuota?: number): Promise<{ apiKey: string; key: ApiKeyInfo; customer: CustomerInfo }>;
  listKeys(customerId?: string): Promise<{ keys: ApiKeyInfo[]; customers: CustomerInfo[] }>;
  // A plaintext key or a key id; undefined when neither names a key.
  revokeKey(keyOrId: string): Promise<ApiKeyInfo | undefined>;
  setQuota(customerId: string, monthlyQuota: number): Promise<CustomerInfo>;
  getCustomer(customerId: string): Promise<CustomerInfo | undefined>;
  reserve(customerId: string, jobId: string, opts?: ReserveOptions): Promise<ReserveResult>;
  // True only the first time a reservation is refunded (by anyone: the edge or a reaper).
  refund(reservationId: string): Promise<boolean>;
  // True once committed (idempotent); false when it was refunded first or is unknown.
  commit(reservationId: string): Promise<boolean>;
  // The reaper's side: refund and settle the expired holds of one counter; follow the counters' holds.
  reapCounter(counterKey: string): Promise<SettleResult & { nextExpiry?: number }>;
  watchHolds(onChange: (counterKey: string, earliestExpiry: number | undefined) => void): Promise<{ stop(): void; done: Promise<void> }>;
  // Uncommitted reservations of this and last month.
  listHeld(): Promise<HeldReservation[]>;
}

const enc = (v: unknown) => JSON.stringify(v);

// KV layout:
//   cva_keys       d.<sha256 hex>                 → KeyRecord (JSON)
//                  id.<key id>                    → sha256 hex (revoke/list by public id)
//   cva_customers  c.<base64url customer id>      → CustomerRecord
//   cva_quota      u.<base64url customer>.<YYYY-MM> → CounterRecord {used, held}, updated only by compare-and-swap
//                  r.<reservation id>             → ReservationRecord (state decided once, by CAS)
//                  i.<base64url customer>.<sha256 hex of key> → IdempotencyRecord
export async function createAuthStore(nc: NatsConnection, opts: AuthStoreOptions = {}): Promise<AuthStore> {
  const kvm = replicatedKvm(nc);
  const [keys, customers] = await Promise.all([
    kvm.create(KEYS_BUCKET, { history: 1 }),
    kvm.create(CUSTOMERS_BUCKET, { history: 1 }),
    kvm.create(QUOTA_BUCKET, { history: 1, ttl: QUOTA_RETENTION_MS }),
  ]);
  // The money: read through the stream leader, compare-and-swap exclusive on a replicated bucket (ledger-kv.ts).
  const quota = await openLedgerKv(nc, QUOTA_BUCKET);
  const defaultQuota = opts.defaultMonthlyQuota ?? DEFAULT_MONTHLY_QUOTA;
  const now = opts.now ?? Date.now;
  return new NatsAuthStore(keys, customers, quota, defaultQuota, now, opts.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS);
}

function checkCustomerId(id: string): string {
  if (typeof id !== "string" || id.trim() === "") throw invalidArgument("customer_id is required");
  if (id.length > MAX_CUSTOMER_ID) throw invalidArgument(`customer_id is longer than ${MAX_CUSTOMER_ID} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) throw invalidArgument("customer_id contains control characters");
  return id;
}

function checkQuota(n: number, field = "monthly_quota"): number {
  if (!Number.isSafeInteger(n) || n < 0) throw invalidArgument(`${field} must be a non-negative integer`);
  return n;
}

class NatsAuthStore implements AuthStore {
  private readonly ledger: ReservationLedger;

  constructor(
    private readonly keys: KV,
    private readonly customers: KV,
    private readonly quota: LedgerKv,
    private readonly defaultQuota: number,
    private readonly now: () => number,
    reservationTtlMs: number,
  ) {
    this.ledger = new ReservationLedger(quota, (id) => this.readCustomer(id), now, reservationTtlMs);
  }

  async authenticate(apiKey: string): Promise<{ customerId: string; keyId: string } | undefined> {
    if (!apiKey || apiKey.length > MAX_API_KEY) return undefined;
    const digest = digestKey(apiKey);
    const e = await this.keys.get(`d.${digest.toString("hex")}`);
    if (!live(e)) return undefined;
    const rec = e.json<KeyRecord>();
    // The lookup already matched on the digest; comparing the stored digest in constant time as well means no
    // branch depends on secret-derived bytes beyond the fixed-cost hash, whatever the KV does internally.
    if (!sameDigest(digest, Buffer.from(rec.sha256, "hex"))) return undefined;
    if (rec.revoked) return undefined;
    return { customerId: rec.customer_id, keyId: rec.key_id };
  }

  async createKey(customerId: string, monthlyQuota = 0) {
    checkCustomerId(customerId);
    checkQuota(monthlyQuota);
    await this.ensureCustomer(customerId, monthlyQuota);
    const apiKey = generateApiKey();
    const sha256 = digestKey(apiKey).toString("hex");
    let keyId: string;
    for (;;) {
      keyId = generateKeyId();
      try {
        // create() fails if the id exists: public ids stay unique without a global lock.
        await this.keys.create(`id.${keyId}`, sha256);
        break;
      } catch (err) {
        if (!(await this.keys.get(`id.${keyId}`))) throw err;
      }
    }
    const rec: KeyRecord = { key_id: keyId, customer_id: customerId, created_unix: Math.floor(this.now() / 1000), revoked: false, sha256 };
    await this.keys.create(`d.${sha256}`, enc(rec));
    const customer = await this.getCustomer(customerId);
    return { apiKey, key: keyInfo(rec), customer: customer! };
  }

  async listKeys(customerId?: string) {
    const out: ApiKeyInfo[] = [];
    for (const k of await collect(this.keys.keys("d.>"))) {
      const e = await this.keys.get(k);
      if (!live(e)) continue;
      const rec = e.json<KeyRecord>();
      if (customerId && rec.customer_id !== customerId) continue;
      out.push(keyInfo(rec));
    }
    out.sort((a, b) => a.customerId.localeCompare(b.customerId) || a.createdUnix - b.createdUnix || a.keyId.localeCompare(b.keyId));
    let ids: string[];
    if (customerId) ids = [customerId];
    else ids = (await collect(this.customers.keys("c.>"))).map((k) => untoken(k.slice(2)));
    const customers: CustomerInfo[] = [];
    for (const id of ids.sort()) {
      const c = await this.getCustomer(id);
      if (c) customers.push(c);
    }
    return { keys: out, customers };
  }

  async revokeKey(keyOrId: string): Promise<ApiKeyInfo | undefined> {
    if (!keyOrId || keyOrId.length > MAX_API_KEY) return undefined;
    let sha256: string;
    if (KEY_ID_PATTERN.test(keyOrId)) {
      const e = await this.keys.get(`id.${keyOrId}`);
      if (!live(e)) return undefined;
      sha256 = e.string();
    } else {
      sha256 = digestKey(keyOrId).toString("hex");
    }
    const k = `d.${sha256}`;
    return casLoop("key", async () => {
      const e = await this.keys.get(k);
      if (!live(e)) return undefined;
      const rec = e.json<KeyRecord>();
      if (!rec.revoked) {
        rec.revoked = true;
        await this.keys.update(k, enc(rec), e.revision);
      }
      return keyInfo(rec);
    });
  }

  async setQuota(customerId: string, monthlyQuota: number): Promise<CustomerInfo> {
    checkCustomerId(customerId);
    checkQuota(monthlyQuota);
    const k = `c.${token(customerId)}`;
    await casLoop("customer", async () => {
      const e = await this.customers.get(k);
      if (!live(e)) throw notFound(`no customer ${JSON.stringify(customerId)}; create a key for it first`);
      const rec = e.json<CustomerRecord>();
      rec.monthly_quota = monthlyQuota;
      await this.customers.update(k, enc(rec), e.revision);
    });
    return (await this.getCustomer(customerId))!;
  }

  async getCustomer(customerId: string): Promise<CustomerInfo | undefined> {
    checkCustomerId(customerId);
    const rec = await this.readCustomer(customerId);
    if (!rec) return undefined;
    const month = utcMonth(this.now());
    const used = await this.readUsed(customerId, month);
    return { customerId, monthlyQuota: rec.monthly_quota, usedThisMonth: used.used, month };
  }

  async reserve(customerId: string, jobId: string, opts?: ReserveOptions): Promise<ReserveResult> {
    checkCustomerId(customerId);
    return this.ledger.reserve(customerId, jobId, opts);
  }

  refund(reservationId: string): Promise<boolean> {
    return this.ledger.refund(reservationId);
  }

  commit(reservationId: string): Promise<boolean> {
    return this.ledger.commit(reservationId);
  }

  reapCounter(counterKey: string): Promise<SettleResult & { nextExpiry?: number }> {
    return this.ledger.reapCounter(counterKey);
  }

  watchHolds(onChange: (counterKey: string, earliestExpiry: number | undefined) => void) {
    return this.ledger.watchHolds(onChange);
  }

  listHeld(): Promise<HeldReservation[]> {
    return this.ledger.listHeld();
  }

  private async readCustomer(customerId: string): Promise<CustomerRecord | undefined> {
    const e = await this.customers.get(`c.${token(customerId)}`);
    return live(e) ? e.json<CustomerRecord>() : undefined;
  }

  private async readUsed(customerId: string, month: string): Promise<CounterRecord> {
    const e = await this.quota.get(counterKvKey(customerId, month));
    return live(e) ? e.json<CounterRecord>() : { used: 0 };
  }

  // Creates the customer with the given (or default) quota; for an existing one a non-zero quota replaces its own.
  private async ensureCustomer(customerId: string, monthlyQuota: number): Promise<void> {
    const k = `c.${token(customerId)}`;
    await casLoop("customer", async () => {
      const e = await this.customers.get(k);
      if (!live(e)) {
        const rec: CustomerRecord = {
          customer_id: customerId,
          monthly_quota: monthlyQuota || this.defaultQuota,
          created_unix: Math.floor(this.now() / 1000),
        };
        await this.customers.create(k, enc(rec));
        return;
      }
      if (monthlyQuota === 0) return;
      const rec = e.json<CustomerRecord>();
      rec.monthly_quota = monthlyQuota;
      await this.customers.update(k, enc(rec), e.revision);
    });
  }
}

function keyInfo(rec: KeyRecord): ApiKeyInfo {
  return { keyId: rec.key_id, customerId: rec.customer_id, createdUnix: rec.created_unix, revoked: rec.revoked };
}

async function collect(it: Promise<AsyncIterable<string>>): Promise<string[]> {
  const out: string[] = [];
  for await (const k of await it) out.push(k);
  return out;
}
