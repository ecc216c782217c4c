// The platform end to end, with real NATS, auth, report-store and edge processes and a scripted tag worker (no
// Chromium): documented errors and their order, quota exactness under concurrency, refunds, report access by owner
// only, "no worker" answered fast, and gRPC interop with a plain @grpc/grpc-js client.
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auth, health, scan } from "@cva/contracts";
import { until } from "@cva/platform/testing/index.ts";
import { b64, postJson, repoRoot, startStack, type TestStack } from "../harness/stack.ts";

const TAG = b64('<div style="width:300px;height:250px;background:#c00">ad</div>');
const worker = (name: string, env: Record<string, string>) => ({ name, entry: `${repoRoot}/test/fixtures/scripted-tag-worker.ts`, env });

function unary<I extends DescMessage, O extends DescMessage>(address: string, path: string, inSchema: I, outSchema: O, req: MessageShape<I>, md = new grpc.Metadata()) {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise<MessageShape<O>>((resolve, reject) =>
    client.makeUnaryRequest(path, (m: MessageShape<I>) => Buffer.from(toBinary(inSchema, m)), (b: Buffer) => fromBinary(outSchema, b), req, md, (err, res) => {
      client.close();
      err ? reject(err) : resolve(res!);
    }),
  );
}

describe("platform end to end", () => {
  let stack: TestStack;
  let key: string;

  beforeAll(async () => {
    stack = await startStack({
      only: ["auth", "report-store", "edge"],
      // Quota exactness below needs more than the default in-flight cap (2 with this worker's 4 slots) of one
      // customer's scans at once; the cap has its own test (reservations.test.ts).
      env: { CUSTOMER_MAX_IN_FLIGHT: "64" },
      extra: [worker("tag-usa", { SERVER_LOCATION: "usa", HOLD_MS: "200" }), worker("tag-nld-failing", { SERVER_LOCATION: "nld", MODE: "fail" })],
    });
    key = await stack.createKey("acme", 1000);
    // Wait until the scripted workers' heartbeats reached the edge: a scan goes through.
    await until("a first scan through the scripted worker", async () => (await postJson(`${stack.baseUrl}/v3/scanTag`, { data: TAG }, key)).status, (s) => s === 200, 60_000, 200);
  }, 120_000);
  afterAll(async () => stack?.stop());

  it("answers invalid_endpoint before looking at the key", async () => {
    for (const [method, path] of [["GET", "/v3/scanTag"], ["POST", "/v4/scanTag"], ["DELETE", "/v3/reports/x"], ["POST", "/"], ["GET", "/index.html"]]) {
      const r = await fetch(`${stack.baseUrl}${path}`, { method });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
      expect((await r.json()).error_type).toBe("invalid_endpoint");
    }
  });

  it("answers authentication_error for a missing, unknown or revoked key, before the payload", async () => {
    const revoked = await stack.createKey("gone");
    await stack.revokeKey(revoked);
    for (const k of [undefined, "", "cva_unknown", revoked]) {
      const r = await postJson(`${stack.baseUrl}/v3/scanTag`, { nonsense: true }, k);
      expect(r.status).toBe(401);
      expect(Object.keys(r.json).sort()).toEqual(["error_type", "message"]);
      expect(r.json.error_type).toBe("authentication_error");
    }
  });

  it("scans through a worker, stores the report, and serves it to its owner only", async () => {
    const r = await postJson(`${stack.baseUrl}/v3/scanTag`, { data: TAG, name: "launch", workspace_id: 7 }, key);
    expect(r.status).toBe(200);
    expect(r.json.name).toBe("launch");
    expect(r.json.job_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.meta.api_version).toBe("v3");
    expect(r.json.scan_results.report_url).toMatch(new RegExp(`^${stack.baseUrl}/`));
    const again = await fetch(`${stack.baseUrl}/v3/reports/${r.json.job_id}`, { headers: { "x-apikey": key } });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(r.text);
    const other = await stack.createKey("someone-else");
    const denied = await fetch(`${stack.baseUrl}/v3/reports/${r.json.job_id}`, { headers: { "x-apikey": other } });
    expect(denied.status).toBe(404);
    const list = await fetch(`${stack.baseUrl}/v3/workspaces/7/reports`, { headers: { "x-apikey": key } }).then((x) => x.json());
    expect(list.reports.map((x: { job_id: string }) => x.job_id)).toContain(r.json.job_id);
    const page = await fetch(r.json.scan_results.report_url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
  });

  it("reserves quota exactly under concurrency", async () => {
    const k = await stack.createKey("tight", 5);
    const results = await Promise.all(Array.from({ length: 12 }, () => postJson(`${stack.baseUrl}/v3/scanTag`, { data: TAG }, k)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    expect(results.find((r) => r.status === 429)!.json.error_type).toBe("quota_error");
  });

  it("does not charge a scan that ends in processing_error", async () => {
    const k = await stack.createKey("one-shot", 1);
    const failed = await postJson(`${stack.baseUrl}/v2/scanTag`, { data: TAG, targeting: { country: "nld" } }, k);
    expect(failed.status).toBe(400);
    expect(failed.json.error_type).toBe("processing_error");
    const ok = await postJson(`${stack.baseUrl}/v2/scanTag`, { data: TAG, targeting: { country: "usa" } }, k);
    expect(ok.status).toBe(200);
    expect(ok.json.visual_artifacts).toBeTypeOf("boolean");
    expect(ok.json).not.toHaveProperty("scan_results");
    const over = await postJson(`${stack.baseUrl}/v2/scanTag`, { data: TAG }, k);
    expect(over.status).toBe(429);
  });

  it("answers processing_error with Retry-After within 2 s when no worker of that kind runs", async () => {
    const started = Date.now();
    const r = await postJson(`${stack.baseUrl}/v3/scanVAST`, { data: b64("https://ads.example.com/vast.xml") }, key);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.status).toBe(400);
    expect(r.json.error_type).toBe("processing_error");
    expect(r.json.message).toMatch(/no worker resources/);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("serves the public scan service and an internal service to a plain @grpc/grpc-js client", async () => {
    const md = new grpc.Metadata();
    md.set("x-apikey", key);
    const res = await unary(`127.0.0.1:${stack.ports.edgeGrpc}`, "/cva.scan.v1.ScanService/ScanTagV3", scan.ScanTagV3RequestSchema, scan.ScanTagV3ResponseSchema,
      create(scan.ScanTagV3RequestSchema, { data: new TextEncoder().encode('<div style="width:300px;height:250px">x</div>'), name: "grpc" }), md);
    expect(res.report?.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.report?.name).toBe("grpc");
    await expect(unary(`127.0.0.1:${stack.ports.edgeGrpc}`, "/cva.scan.v1.ScanService/ScanTagV3", scan.ScanTagV3RequestSchema, scan.ScanTagV3ResponseSchema,
      create(scan.ScanTagV3RequestSchema, { data: new Uint8Array([1]) }))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });

    // An internal service answers a plain grpc-js client that presents the service credential in metadata.
    const internal = new grpc.Metadata();
    internal.set("authorization", `Bearer ${stack.secrets.service}`);
    const who = await unary(`127.0.0.1:${stack.ports.auth}`, "/cva.auth.v1.AuthService/Authenticate", auth.AuthenticateRequestSchema, auth.AuthenticateResponseSchema,
      create(auth.AuthenticateRequestSchema, { apiKey: key }), internal);
    expect(who.customerId).toBe("acme");
    const check = (port: number) => unary(`127.0.0.1:${port}`, "/grpc.health.v1.Health/Check", health.HealthCheckRequestSchema, health.HealthCheckResponseSchema, create(health.HealthCheckRequestSchema, {}));
    for (const port of [stack.ports.auth, stack.ports.reportStore]) expect((await check(port)).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
    // The edge's gRPC health follows its readiness: without zip, VAST and media workers it is not serving yet.
    expect((await check(stack.ports.edgeGrpc)).status).toBe(health.HealthCheckResponse_ServingStatus.NOT_SERVING);
  });

  it("reports liveness and readiness", async () => {
    expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
    // No zip, vast or media worker runs here, so the edge is not ready.
    const ready = await fetch(`${stack.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
  });
});
