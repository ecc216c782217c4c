import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, health, scan } from "@cva/contracts";
import pino from "pino";
import { buildEdge } from "../src/app.ts";
import { startGrpcServer, type GrpcServer } from "../src/grpc/server.ts";
import { FakeAuth, FakeDispatcher, FakeReportStore, testConfig } from "./fakes.ts";

// A plain grpc-js client (what an internal caller would use), no Connect on the client side.
describe("public gRPC ScanService", () => {
  let server: GrpcServer;
  let client: grpc.Client;
  const authFake = new FakeAuth();
  const store = new FakeReportStore();
  const dispatcher = new FakeDispatcher();

  beforeAll(async () => {
    const { app, ctx } = await buildEdge({
      auth: authFake.client(), reports: store.client(), dispatcher, config: testConfig(), logger: pino({ level: "silent" }),
      isKnownSpecId: (id) => id === 0,
    });
    await app.ready();
    server = await startGrpcServer({ port: 0, host: "127.0.0.1", useCases: ctx.useCases, limits: ctx.deps.config.limits, isKnownSpecId: ctx.isKnownSpecId, logger: ctx.deps.logger });
    client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  function call<I extends DescMessage, O extends DescMessage>(
    path: string, inSchema: I, outSchema: O, req: MessageShape<I>, key?: string,
  ): Promise<MessageShape<O>> {
    const md = new grpc.Metadata();
    if (key !== undefined) md.set("x-apikey", key);
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        path,
        (m: MessageShape<I>) => Buffer.from(toBinary(inSchema, m)),
        (b: Buffer) => fromBinary(outSchema, b),
        req, md,
        // Connect percent-encodes grpc-message with encodeURIComponent; grpc-js decodes with decodeURI, which leaves
        // reserved characters such as ':' encoded. Undo that here, as a grpc-js caller has to.
        (err, res) => (err ? reject(Object.assign(err, { details: decodeURIComponent(err.details) })) : resolve(res!)),
      );
    });
  }
  const S = "/cva.scan.v1.ScanService/";

  it("ScanTagV3 with x-apikey returns the report with URLs filled", async () => {
    const res = await call(`${S}ScanTagV3`, scan.ScanTagV3RequestSchema, scan.ScanTagV3ResponseSchema,
      create(scan.ScanTagV3RequestSchema, { data: new TextEncoder().encode("<div>ad</div>"), name: "grpc" }), "key-a");
    expect(res.report!.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.report!.name).toBe("grpc");
    expect(res.report!.screenshot!.highres!.url).toBe("https://edge.test/artifacts/shot1");
    expect(res.report!.scanResults!.reportUrl).toMatch(/^https:\/\/edge\.test\/r\//);
    // Stored as the JSON the HTTP API would return; GetReport hands it back.
    const got = await call(`${S}GetReport`, scan.GetReportRequestSchema, scan.GetReportResponseSchema,
      create(scan.GetReportRequestSchema, { jobId: res.report!.jobId }), "key-a");
    expect(got.reportKind).toBe("tag_v3");
    expect(JSON.parse(Buffer.from(got.json).toString()).name).toBe("grpc");
  });

  it("ScanZip / ScanVast / ScanTagV2 / ListWorkspaceReports work", async () => {
    const zip = await call(`${S}ScanZip`, scan.ScanZipRequestSchema, scan.ScanZipResponseSchema,
      create(scan.ScanZipRequestSchema, { data: new Uint8Array([0x50, 0x4b, 5, 6, ...new Array(18).fill(0)]) }), "key-a");
    expect(zip.report!.render!.jobId).toMatch(/-/);
    const vast = await call(`${S}ScanVast`, scan.ScanVastRequestSchema, scan.ScanVastResponseSchema,
      create(scan.ScanVastRequestSchema, { url: "https://ads.example/vast.xml", workspaceId: 4n }), "key-a");
    expect(vast.report!.creatives[0]!.mediafiles[0]!.probe!.poster!.url).toBe("https://edge.test/artifacts/poster1");
    const v2 = await call(`${S}ScanTagV2`, scan.ScanTagV2RequestSchema, scan.ScanTagV2ResponseSchema,
      create(scan.ScanTagV2RequestSchema, { data: new TextEncoder().encode("<p>x</p>"), targeting: { device: Device.MOBILE, country: "nld" } }), "key-a");
    expect(v2.report!.jobId).toMatch(/-/);
    expect(dispatcher.jobs.at(-1)!.targeting!.country).toBe("nld");
    const list = await call(`${S}ListWorkspaceReports`, scan.ListWorkspaceReportsRequestSchema, scan.ListWorkspaceReportsResponseSchema,
      create(scan.ListWorkspaceReportsRequestSchema, { workspaceId: 4n }), "key-a");
    expect(list.reports.map((r) => r.jobId)).toEqual([vast.report!.jobId]);
  });

  it("errors map to gRPC codes with the JSON API's messages", async () => {
    const tag = (data: Uint8Array, extra: object = {}) => create(scan.ScanTagV3RequestSchema, { data, ...extra });
    const v3 = (req: ReturnType<typeof tag>, key?: string) => call(`${S}ScanTagV3`, scan.ScanTagV3RequestSchema, scan.ScanTagV3ResponseSchema, req, key);
    const ok = new TextEncoder().encode("<b>x</b>");
    await expect(v3(tag(ok))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: "X-ApiKey header missing" });
    await expect(v3(tag(ok), "nope")).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    await expect(v3(tag(new Uint8Array()), "key-a")).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: "data: must not be empty" });
    await expect(v3(tag(ok, { specId: 5 }), "key-a")).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: "spec_id: unknown specification set 5" });
    await expect(call(`${S}ScanVast`, scan.ScanVastRequestSchema, scan.ScanVastResponseSchema, create(scan.ScanVastRequestSchema, { url: "file:///etc/passwd" }), "key-a"))
      .rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    dispatcher.behaviour = "no-worker";
    await expect(v3(tag(ok), "key-a")).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    dispatcher.behaviour = "ok";
    authFake.quota.set("cust-b", 0);
    await expect(v3(tag(ok), "key-b")).rejects.toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED, details: "monthly scan quota used up" });
    await expect(call(`${S}GetReport`, scan.GetReportRequestSchema, scan.GetReportResponseSchema, create(scan.GetReportRequestSchema, { jobId: "x" }), "key-a"))
      .rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it("ScanTagV3 / ScanZipV3 allowed_domains (field 5): checked as over JSON, passed to the job; none = the workspace's stored list", async () => {
    const data = new TextEncoder().encode("<div>ad</div>");
    const allowlist = () => { const i = dispatcher.jobs.at(-1)!.input; return i.case === "tag" || i.case === "zip" ? [...i.value.allowedDomains] : undefined; };
    await call(`${S}ScanTagV3`, scan.ScanTagV3RequestSchema, scan.ScanTagV3ResponseSchema,
      create(scan.ScanTagV3RequestSchema, { data, allowedDomains: ["*.Doubleclick.net", "adsrvr.org."] }), "key-a");
    expect(allowlist()).toEqual(["doubleclick.net", "adsrvr.org"]);
    await call(`${S}ScanZipV3`, scan.ScanZipV3RequestSchema, scan.ScanZipV3ResponseSchema,
      create(scan.ScanZipV3RequestSchema, { data: new Uint8Array([0x50, 0x4b, 5, 6, ...new Array(18).fill(0)]), allowedDomains: ["cdn.example"] }), "key-a");
    expect(allowlist()).toEqual(["cdn.example"]);
    store.workspaces.set("cust-a 6", { allowedDomains: ["publisher.example"], updatedUnixMs: 1n });
    await call(`${S}ScanTagV3`, scan.ScanTagV3RequestSchema, scan.ScanTagV3ResponseSchema, create(scan.ScanTagV3RequestSchema, { data, workspaceId: 6n }), "key-a");
    expect(allowlist()).toEqual(["publisher.example"]);
    await expect(call(`${S}ScanTagV3`, scan.ScanTagV3RequestSchema, scan.ScanTagV3ResponseSchema,
      create(scan.ScanTagV3RequestSchema, { data, allowedDomains: ["https://x.example/"] }), "key-a"))
      .rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: "allowed_domains[0]: must be a domain name such as ads.example.com or *.example.com" });
  });

  it("ScanTagV3 / ScanZipV3 targeting (field 6, our extension): v2's checks and messages, passed to the job", async () => {
    const data = new TextEncoder().encode("<div>ad</div>");
    await call(`${S}ScanTagV3`, scan.ScanTagV3RequestSchema, scan.ScanTagV3ResponseSchema,
      create(scan.ScanTagV3RequestSchema, { data, targeting: { device: Device.MOBILE, language: "nl-NL", country: "nld" } }), "key-a");
    expect(dispatcher.jobs.at(-1)!).toMatchObject({ apiVersion: "v3", targeting: { device: Device.MOBILE, language: "nl-NL", country: "nld" } });
    // A zip takes device and language only, as ScanZip (v2).
    await call(`${S}ScanZipV3`, scan.ScanZipV3RequestSchema, scan.ScanZipV3ResponseSchema,
      create(scan.ScanZipV3RequestSchema, { data: new Uint8Array([0x50, 0x4b, 5, 6, ...new Array(18).fill(0)]), targeting: { device: Device.MOBILE, language: "de-DE", country: "nld" } }), "key-a");
    expect(dispatcher.jobs.at(-1)!).toMatchObject({ apiVersion: "v3", targeting: { device: Device.MOBILE, language: "de-DE", country: "usa" } });
    await expect(call(`${S}ScanTagV3`, scan.ScanTagV3RequestSchema, scan.ScanTagV3ResponseSchema,
      create(scan.ScanTagV3RequestSchema, { data, targeting: { country: "deu" } }), "key-a"))
      .rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: "targeting.country: must be one of usa, nld" });
    await expect(call(`${S}ScanZipV3`, scan.ScanZipV3RequestSchema, scan.ScanZipV3ResponseSchema,
      create(scan.ScanZipV3RequestSchema, { data: new Uint8Array([0x50, 0x4b, 5, 6, ...new Array(18).fill(0)]), targeting: { language: "en_US" } }), "key-a"))
      .rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringMatching(/^targeting\.language: not a valid Accept-Language value/) });
  });

  it("serves grpc.health.v1", async () => {
    const res = await call("/grpc.health.v1.Health/Check", health.HealthCheckRequestSchema, health.HealthCheckResponseSchema, create(health.HealthCheckRequestSchema, {}));
    expect(res.status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
  });
});
