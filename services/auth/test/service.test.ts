import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { auth, health } from "@cva/contracts";
import { silentLogger, startServiceHost, withCredential, type ServiceHost } from "@cva/platform";
import { startNatsServer, testCredentials, testSecrets } from "@cva/platform/testing/index.ts";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_ADMIN_METHODS } from "../src/access.ts";
import { registerAuthRoutes } from "../src/routes.ts";
import { createAuthStore } from "../src/store.ts";

let nats: Awaited<ReturnType<typeof startNatsServer>>;
let nc: NatsConnection;
let host: ServiceHost;
// The operator (admin credential) and the edge (service credential), as in production.
let client: Client<typeof auth.AuthService>;
let edge: Client<typeof auth.AuthService>;
const as = (secret?: string) =>
  createClient(auth.AuthService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${host.port}`, interceptors: secret ? [withCredential(secret)] : [] }));

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  const store = await createAuthStore(nc, { defaultMonthlyQuota: 100 });
  const logger = silentLogger();
  host = await startServiceHost({
    name: "auth",
    port: 0,
    metricsPort: 0,
    host: "127.0.0.1",
    credentials: testCredentials,
    adminMethods: AUTH_ADMIN_METHODS,
    logger,
    serviceNames: [auth.AuthService.typeName],
    register: (router) => registerAuthRoutes(router, store),
  });
  client = as(testSecrets.admin);
  edge = as(testSecrets.service);
});

afterAll(async () => {
  await host?.close();
  await nc?.close();
  await nats?.stop();
});

async function code(p: Promise<unknown>): Promise<Code | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return ConnectError.from(err).code;
  }
}

describe("AuthService over gRPC", () => {
  it("creates, authenticates, lists and revokes keys", async () => {
    const created = await client.createKey({ customerId: "wire" });
    expect(created.apiKey).toMatch(/^cva_/);
    expect(created.customer?.monthlyQuota).toBe(100n);
    const who = await edge.authenticate({ apiKey: created.apiKey });
    expect(who).toMatchObject({ customerId: "wire", keyId: created.key?.keyId });

    const listed = await client.listKeys({ customerId: "wire" });
    expect(listed.keys.map((k) => k.keyId)).toEqual([created.key?.keyId]);
    expect(JSON.stringify(listed, (_k, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(created.apiKey);

    expect(await code(edge.authenticate({ apiKey: "" }))).toBe(Code.Unauthenticated);
    expect(await code(edge.authenticate({ apiKey: "cva_nope" }))).toBe(Code.Unauthenticated);
    expect((await client.revokeKey({ key: created.key!.keyId })).key?.revoked).toBe(true);
    expect(await code(edge.authenticate({ apiKey: created.apiKey }))).toBe(Code.Unauthenticated);
    expect(await code(client.revokeKey({ key: "key_ffffffffffff" }))).toBe(Code.NotFound);
  });

  it("reserves exactly the quota under concurrency, refunds once", async () => {
    await client.createKey({ customerId: "wire-q", monthlyQuota: 7n });
    const calls = Array.from({ length: 20 }, (_, i) =>
      edge.reserveQuota({ customerId: "wire-q", jobId: `j${i}` }).then(
        (r) => r,
        (err) => ConnectError.from(err),
      ),
    );
    const results = await Promise.all(calls);
    const ok = results.filter((r): r is auth.ReserveQuotaResponse => !(r instanceof ConnectError));
    expect(ok).toHaveLength(7);
    expect(results.filter((r) => r instanceof ConnectError).every((e) => (e as ConnectError).code === Code.ResourceExhausted)).toBe(true);

    expect((await edge.refundQuota({ reservationId: ok[0].reservationId })).refunded).toBe(true);
    expect((await edge.refundQuota({ reservationId: ok[0].reservationId })).refunded).toBe(false);
    const c = await client.getCustomer({ customerId: "wire-q" });
    expect(c.customer).toMatchObject({ monthlyQuota: 7n, usedThisMonth: 6n });
  });

  it("commits, caps in-flight scans and answers idempotent retries over the wire", async () => {
    await client.createKey({ customerId: "wire-c", monthlyQuota: 10n });
    const hash = "a".repeat(43);
    const first = await edge.reserveQuota({ customerId: "wire-c", jobId: "job-a", ttlMs: 60_000n, maxInFlight: 2, idempotencyKey: "retry-me", requestHash: hash });
    expect(first.reservationId).not.toBe("");
    expect(first.replay).toBe(auth.ReplayState.UNSPECIFIED);
    const again = await edge.reserveQuota({ customerId: "wire-c", jobId: "job-b", maxInFlight: 2, idempotencyKey: "retry-me", requestHash: hash });
    expect(again).toMatchObject({ reservationId: first.reservationId, replay: auth.ReplayState.RUNNING, jobId: "job-a" });
    const conflict = await edge.reserveQuota({ customerId: "wire-c", jobId: "job-c", idempotencyKey: "retry-me", requestHash: "b".repeat(43) }).catch((e: unknown) => ConnectError.from(e));
    expect(conflict).toMatchObject({ code: Code.AlreadyExists, rawMessage: "idempotency_key is already used with a different request" });

    await edge.reserveQuota({ customerId: "wire-c", jobId: "job-d", maxInFlight: 2 });
    const capped = await edge.reserveQuota({ customerId: "wire-c", jobId: "job-e", maxInFlight: 2 }).catch((e: unknown) => ConnectError.from(e));
    expect(capped).toMatchObject({ code: Code.FailedPrecondition, rawMessage: "2 scans already in flight; at most 2 at once" });

    expect((await edge.commitQuota({ reservationId: first.reservationId })).committed).toBe(true);
    expect((await edge.commitQuota({ reservationId: first.reservationId })).committed).toBe(true);
    expect((await edge.refundQuota({ reservationId: first.reservationId })).refunded).toBe(false);
    expect(await edge.reserveQuota({ customerId: "wire-c", jobId: "job-f", idempotencyKey: "retry-me", requestHash: hash })).toMatchObject({ replay: auth.ReplayState.DONE, jobId: "job-a" });
    expect((await edge.commitQuota({ reservationId: "unknown-reservation" })).committed).toBe(false);
    expect(await code(edge.reserveQuota({ customerId: "wire-c", jobId: "x", idempotencyKey: "bad\u0001", requestHash: hash }))).toBe(Code.InvalidArgument);
    expect(await code(edge.reserveQuota({ customerId: "wire-c", jobId: "x", ttlMs: 86_400_000n }))).toBe(Code.InvalidArgument);
    expect((await client.getCustomer({ customerId: "wire-c" })).customer?.usedThisMonth).toBe(2n);
  });

  it("sets quotas and reports errors with the right codes", async () => {
    await client.createKey({ customerId: "wire-s" });
    expect((await client.setQuota({ customerId: "wire-s", monthlyQuota: 3n })).customer?.monthlyQuota).toBe(3n);
    expect(await code(client.setQuota({ customerId: "nobody", monthlyQuota: 3n }))).toBe(Code.NotFound);
    expect(await code(client.setQuota({ customerId: "wire-s", monthlyQuota: -1n }))).toBe(Code.InvalidArgument);
    expect(await code(client.createKey({ customerId: "" }))).toBe(Code.InvalidArgument);
    expect(await code(client.getCustomer({ customerId: "nobody" }))).toBe(Code.NotFound);
  });

  it("answers grpc.health.v1", async () => {
    const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${host.port}` });
    const h = createClient(health.Health, transport);
    const res = await h.check({ service: auth.AuthService.typeName });
    expect(res.status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
  });

  // Hostile: the doors of the auth service. Answers: no or a wrong credential → UNAUTHENTICATED; the edge's service
  // credential on a key/quota RPC → PERMISSION_DENIED; the admin credential is not a service credential either.
  // Nothing is created, and the service answers normally afterwards.
  it("refuses every RPC without the right credential; admin RPCs need the admin credential", async () => {
    const anonymous = as();
    const forged = as("not-the-secret-but-long-enough");
    const admin: Array<[string, (c: Client<typeof auth.AuthService>) => Promise<unknown>]> = [
      ["CreateKey", (c) => c.createKey({ customerId: "intruder", monthlyQuota: 1_000_000n })],
      ["SetQuota", (c) => c.setQuota({ customerId: "wire", monthlyQuota: 1_000_000n })],
      ["ListKeys", (c) => c.listKeys({})],
      ["RevokeKey", (c) => c.revokeKey({ key: "key_ffffffffffff" })],
      ["GetCustomer", (c) => c.getCustomer({ customerId: "wire" })],
    ];
    for (const [name, call] of admin) {
      expect(await code(call(anonymous)), `${name} without credential`).toBe(Code.Unauthenticated);
      expect(await code(call(forged)), `${name} with a wrong credential`).toBe(Code.Unauthenticated);
      expect(await code(call(edge)), `${name} with the service credential`).toBe(Code.PermissionDenied);
    }
    const service: Array<[string, (c: Client<typeof auth.AuthService>) => Promise<unknown>]> = [
      ["Authenticate", (c) => c.authenticate({ apiKey: "cva_guess" })],
      ["ReserveQuota", (c) => c.reserveQuota({ customerId: "wire", jobId: "stolen" })],
      ["RefundQuota", (c) => c.refundQuota({ reservationId: "r".repeat(20) })],
      ["CommitQuota", (c) => c.commitQuota({ reservationId: "r".repeat(20) })],
    ];
    for (const [name, call] of service) {
      expect(await code(call(anonymous)), `${name} without credential`).toBe(Code.Unauthenticated);
      expect(await code(call(forged)), `${name} with a wrong credential`).toBe(Code.Unauthenticated);
      expect(await code(call(client)), `${name} with the admin credential`).toBe(Code.Unauthenticated);
    }
    const refused = await anonymous.createKey({ customerId: "intruder" }).catch((e: unknown) => ConnectError.from(e));
    expect((refused as ConnectError).rawMessage).toBe("missing or invalid admin credential");

    expect(await code(client.getCustomer({ customerId: "intruder" }))).toBe(Code.NotFound);
    const k = await client.createKey({ customerId: "after-attack" });
    expect((await edge.authenticate({ apiKey: k.apiKey })).customerId).toBe("after-attack");
  });

  it("leaves grpc.health.v1 open (probes carry no secret; it says only SERVING or not)", async () => {
    const h = createClient(health.Health, createGrpcTransport({ baseUrl: `http://127.0.0.1:${host.port}` }));
    expect((await h.check({ service: "" })).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
  });
});
