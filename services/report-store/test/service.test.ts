import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { reportstore } from "@cva/contracts";
import { silentLogger, startServiceHost, withCredential, type ServiceHost } from "@cva/platform";
import { startNatsServer, testCredentials, testSecrets } from "@cva/platform/testing/index.ts";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openArtifacts } from "../src/artifacts.ts";
import { DAY_MS } from "../src/retention.ts";
import { registerReportStoreRoutes } from "../src/routes.ts";
import { createReportStore } from "../src/store.ts";

let nats: Awaited<ReturnType<typeof startNatsServer>>;
let nc: NatsConnection;
let host: ServiceHost;
let client: Client<typeof reportstore.ReportStoreService>;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  const store = await createReportStore(nc, { retentionMs: 30 * DAY_MS });
  const artifacts = await openArtifacts(nc, 30 * DAY_MS);
  const logger = silentLogger();
  host = await startServiceHost({
    name: "report-store",
    port: 0,
    metricsPort: 0,
    host: "127.0.0.1",
    credentials: testCredentials,
    logger,
    serviceNames: [reportstore.ReportStoreService.typeName],
    register: (router) => registerReportStoreRoutes(router, store, artifacts, logger),
  });
  client = createClient(reportstore.ReportStoreService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${host.port}`, interceptors: [withCredential(testSecrets.service)] }));
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

describe("ReportStoreService over gRPC", () => {
  it("stores and returns reports to their owner only", async () => {
    const json = new TextEncoder().encode('{"a":1}');
    await client.putReport({
      report: { jobId: "j1", customerId: "c1", workspaceId: 3n, reportKind: "zip_v2", json, createdUnixMs: 5n, pageToken: "pt-0123456789abcdef", name: "x" },
    });
    const got = await client.getReport({ jobId: "j1", customerId: "c1" });
    expect(new TextDecoder().decode(got.report!.json)).toBe('{"a":1}');
    expect(await code(client.getReport({ jobId: "j1", customerId: "c2" }))).toBe(Code.NotFound);
    expect(await code(client.getReport({ jobId: "nope", customerId: "c1" }))).toBe(Code.NotFound);
    expect((await client.getReportByPageToken({ pageToken: "pt-0123456789abcdef" })).report?.jobId).toBe("j1");
    expect(await code(client.getReportByPageToken({ pageToken: "pt-unknown" }))).toBe(Code.NotFound);
    expect(await code(client.putReport({}))).toBe(Code.InvalidArgument);
    expect(await code(client.putReport({ report: { jobId: "j1", customerId: "c2" } }))).toBe(Code.AlreadyExists);
  });

  it("lists a workspace newest first with page tokens", async () => {
    for (let i = 0; i < 5; i++) {
      await client.putReport({ report: { jobId: `L${i}`, customerId: "lister", workspaceId: 9n, reportKind: "tag_v3", createdUnixMs: BigInt(1000 + i) } });
    }
    const p1 = await client.listWorkspaceReports({ customerId: "lister", workspaceId: 9n, pageSize: 3 });
    expect(p1.reports.map((r) => r.jobId)).toEqual(["L4", "L3", "L2"]);
    expect(p1.nextPageToken).not.toBe("");
    const p2 = await client.listWorkspaceReports({ customerId: "lister", workspaceId: 9n, pageSize: 3, pageToken: p1.nextPageToken });
    expect(p2.reports.map((r) => r.jobId)).toEqual(["L1", "L0"]);
    expect(p2.nextPageToken).toBe("");
    expect(await code(client.listWorkspaceReports({ customerId: "lister", workspaceId: 9n, pageToken: "%%%" }))).toBe(Code.InvalidArgument);
  });

  it("round-trips artifacts", async () => {
    const data = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
    const { id } = await client.putArtifact({ data, mimeType: "image/png" });
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const got = await client.getArtifact({ id });
    expect(got.mimeType).toBe("image/png");
    expect(Array.from(got.data)).toEqual(Array.from(data));
    expect(await code(client.getArtifact({ id: "x".repeat(22) }))).toBe(Code.NotFound);
    expect(await code(client.getArtifact({ id: "../etc" }))).toBe(Code.NotFound);
    expect(await code(client.putArtifact({ data, mimeType: "not a mime" }))).toBe(Code.InvalidArgument);
    expect(await code(client.putArtifact({ data: new Uint8Array(), mimeType: "image/png" }))).toBe(Code.InvalidArgument);
  });
});
