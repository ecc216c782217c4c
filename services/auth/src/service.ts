import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { auth } from "@cva/contracts";
import type { AuthStore } from "./store.ts";
import type { ApiKeyInfo, CustomerInfo } from "./types.ts";

const toApiKey = (k: ApiKeyInfo) =>
  create(auth.ApiKeySchema, { keyId: k.keyId, customerId: k.customerId, createdUnix: BigInt(k.createdUnix), revoked: k.revoked });

const toCustomer = (c: CustomerInfo) =>
  create(auth.CustomerSchema, {
    customerId: c.customerId,
    monthlyQuota: BigInt(c.monthlyQuota),
    usedThisMonth: BigInt(c.usedThisMonth),
    month: c.month,
  });

// int64 → number; quotas beyond 2^53 are refused rather than silently rounded.
function quotaArg(v: bigint): number {
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ConnectError("monthly_quota must be a non-negative integer", Code.InvalidArgument);
  return Number(v);
}

// The store's refusals (DomainError of @cva/platform) become Connect codes in the service host's one interceptor;
// anything else (NATS down, contention) is logged there and reaches the caller only as an opaque UNAVAILABLE.
/** Metadata of a FAILED_PRECONDITION from ReserveQuota: the in_flight_caps lane that is full. */
export const IN_FLIGHT_LANE_HEADER = "cva-in-flight-lane";

export function createAuthService(store: AuthStore): ServiceImpl<typeof auth.AuthService> {
  return {
    async authenticate(req) {
      if (!req.apiKey) throw new ConnectError("API key missing", Code.Unauthenticated);
      const who = await store.authenticate(req.apiKey);
      if (!who) throw new ConnectError("API key unknown or revoked", Code.Unauthenticated);
      return create(auth.AuthenticateResponseSchema, { customerId: who.customerId, keyId: who.keyId });
    },

    async reserveQuota(req) {
      if (req.maxInFlight < 0) throw new ConnectError("max_in_flight must be a non-negative integer", Code.InvalidArgument);
      if (req.ttlMs < 0n || req.ttlMs > BigInt(Number.MAX_SAFE_INTEGER)) throw new ConnectError("ttl_ms must be a non-negative integer", Code.InvalidArgument);
      const r = await store.reserve(req.customerId, req.jobId, {
        ttlMs: Number(req.ttlMs),
        maxInFlight: req.maxInFlight,
        inFlightCaps: req.inFlightCaps.map((c) => ({ lane: c.lane, max: c.max })),
        ...(req.idempotencyKey ? { idempotencyKey: req.idempotencyKey, requestHash: req.requestHash } : {}),
        ...(req.reservationId ? { reservationId: req.reservationId } : {}),
        ...(req.checkOnly ? { checkOnly: true } : {}),
      });
      if (r.ok) return create(auth.ReserveQuotaResponseSchema, { reservationId: r.reservationId, remaining: BigInt(r.remaining) });
      switch (r.reason) {
        case "quota":
          throw new ConnectError(`monthly quota of ${r.quota} scans is used up for ${r.month} (UTC)`, Code.ResourceExhausted);
        case "in_flight":
          // The lane that is full, for the caller's answer (a zip refused because its render's lane is full).
          throw new ConnectError(
            `${r.inFlight} scans already in flight${r.lane ? ` on ${r.lane}` : ""}; at most ${r.maxInFlight} at once`,
            Code.FailedPrecondition,
            r.lane ? { [IN_FLIGHT_LANE_HEADER]: r.lane } : undefined,
          );
        case "key_conflict":
          throw new ConnectError("idempotency_key is already used with a different request", Code.AlreadyExists);
        case "replay":
          return create(auth.ReserveQuotaResponseSchema, {
            replay: r.replay === "done" ? auth.ReplayState.DONE : auth.ReplayState.RUNNING,
            jobId: r.jobId,
            reservationId: r.replay === "running" ? r.reservationId : "",
          });
      }
    },

    refundQuota: async (req) => create(auth.RefundQuotaResponseSchema, { refunded: await store.refund(req.reservationId) }),

    commitQuota: async (req) => create(auth.CommitQuotaResponseSchema, { committed: await store.commit(req.reservationId) }),

    async createKey(req) {
      const r = await store.createKey(req.customerId, quotaArg(req.monthlyQuota));
      return create(auth.CreateKeyResponseSchema, { apiKey: r.apiKey, key: toApiKey(r.key), customer: toCustomer(r.customer) });
    },

    async listKeys(req) {
      const r = await store.listKeys(req.customerId || undefined);
      return create(auth.ListKeysResponseSchema, { keys: r.keys.map(toApiKey), customers: r.customers.map(toCustomer) });
    },

    async revokeKey(req) {
      const k = await store.revokeKey(req.key);
      if (!k) throw new ConnectError("no such key", Code.NotFound);
      return create(auth.RevokeKeyResponseSchema, { key: toApiKey(k) });
    },

    async setQuota(req) {
      const c = await store.setQuota(req.customerId, quotaArg(req.monthlyQuota));
      return create(auth.SetQuotaResponseSchema, { customer: toCustomer(c) });
    },

    async getCustomer(req) {
      const c = await store.getCustomer(req.customerId);
      if (!c) throw new ConnectError("no such customer", Code.NotFound);
      return create(auth.GetCustomerResponseSchema, { customer: toCustomer(c) });
    },
  };
}
