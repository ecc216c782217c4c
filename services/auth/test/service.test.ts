import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { auth, health } from "@cva/contracts";
import { silentLogger, startServiceHost, type ServiceHost } from "@cva/platform";
import { startNatsServer } from "@cva/platform/testing/index.ts";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAuthRoutes } from "../src/routes.ts";
import { createAuthStore } from "../src/store.ts";

let nats: Awaited<ReturnType<typeof startNatsServer>>;
let nc: NatsConnection;
let host: ServiceHost;
let client: Client<typeof auth.AuthService>;

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
    logger,
    serviceNames: [auth.AuthService.typeName],
    register: (router) => registerAuthRoutes(router, store, logger),
  });
  const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${host.port}` });
  client = createClient(auth.AuthService, transport);
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
    const who = await client.authenticate({ apiKey: created.apiKey });
    expect(who).toMatchObject({ customerId: "wire", keyId: created.key?.keyId });

    const listed = await client.listKeys({ customerId: "wire" });
    expect(listed.keys.map((k) => k.keyId)).toEqual([created.key?.keyId]);
    expect(JSON.stringify(listed, (_k, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(created.apiKey);

    expect(await code(client.authenticate({ apiKey: "" }))).toBe(Code.Unauthenticated);
    expect(await code(client.authenticate({ apiKey: "cva_nope" }))).toBe(Code.Unauthenticated);
    expect((await client.revokeKey({ key: created.key!.keyId })).key?.revoked).toBe(true);
    expect(await code(client.authenticate({ apiKey: created.apiKey }))).toBe(Code.Unauthenticated);
    expect(await code(client.revokeKey({ key: "key_ffffffffffff" }))).toBe(Code.NotFound);
  });

  it("reserves exactly the quota under concurrency, refunds once", async () => {
    await client.createKey({ customerId: "wire-q", monthlyQuota: 7n });
    const calls = Array.from({ length: 20 }, (_, i) =>
      client.reserveQuota({ customerId: "wire-q", jobId: `j${i}` }).then(
        (r) => r,
        (err) => ConnectError.from(err),
      ),
    );
    const results = await Promise.all(calls);
    const ok = results.filter((r): r is auth.ReserveQuotaResponse => !(r instanceof ConnectError));
    expect(ok).toHaveLength(7);
    expect(results.filter((r) => r instanceof ConnectError).every((e) => (e as ConnectError).code === Code.ResourceExhausted)).toBe(true);

    expect((await client.refundQuota({ reservationId: ok[0].reservationId })).refunded).toBe(true);
    expect((await client.refundQuota({ reservationId: ok[0].reservationId })).refunded).toBe(false);
    const c = await client.getCustomer({ customerId: "wire-q" });
    expect(c.customer).toMatchObject({ monthlyQuota: 7n, usedThisMonth: 6n });
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
});
