// scan_results are computed once, at the edge (src/scan/outcome.ts), from the report a worker returns without them:
// the same tests as @cva/spec-sets gives for that report, on both doors; a v3 zip's include the ad tag tests on its
// render; v2 reports carry none.
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { TestOutcome, scan, type ScanResults, type TagReport, type VastReport, type ZipReport } from "@cva/contracts";
import { evaluateTag, evaluateVast, evaluateZip } from "@cva/spec-sets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEdge } from "../src/app.ts";
import { startGrpcServer, type GrpcServer } from "../src/grpc/server.ts";
import { appPerTest, FakeAuth, FakeDispatcher, FakeReportStore, fullTagReport, fullVastReport, fullZipReport, TAG, testConfig, VAST, ZIP } from "./fakes.ts";
import pino from "pino";

// As a worker answers now: no scan_results anywhere in the report.
function asWorkerReturnsIt(r: TagReport | ZipReport | VastReport): void {
  r.scanResults = undefined;
  if ("render" in r && r.render) r.render.scanResults = undefined;
}

const ids = (r: ScanResults) => r.tests.map((t) => `${t.group}/${t.test}`).sort();
const counts = (r: ScanResults) => ({ passed: r.passed, failed: r.failed });
// The JSON views key tests by id (tag, zip) or by group then id (VAST).
const jsonIds = (tests: Record<string, unknown>, grouped: boolean) =>
  (grouped ? Object.entries(tests).flatMap(([g, byId]) => Object.keys(byId as object).map((id) => `${g}/${id}`)) : Object.keys(tests).map((id) => `/${id}`)).sort();

describe("scan_results over JSON", () => {
  const setup = appPerTest();
  const post = async (url: string, payload: object) => {
    const { app, dispatcher } = await setup();
    dispatcher.editReport = asWorkerReturnsIt;
    const res = await app.inject({ method: "POST", url, headers: { "x-apikey": "key-a" }, payload });
    expect(res.statusCode).toBe(200);
    return JSON.parse(res.body);
  };

  it("a v3 tag: the tag tests of spec 0", async () => {
    const want = evaluateTag(fullTagReport(), 0);
    const doc = await post("/v3/scanTag", { data: TAG });
    expect(jsonIds(doc.scan_results.tests, false)).toEqual(ids(want));
    expect(doc.scan_results).toMatchObject(counts(want));
    expect(doc.scan_results.report_url).toMatch(/^https:\/\/edge\.test\/r\//);
  });

  it("a v3 zip: the zip tests plus the ad tag tests on its render", async () => {
    const want = evaluateZip(fullZipReport(), 0);
    const tagIds = evaluateTag(fullZipReport().render!, 0).tests.map((t) => `/${t.test}`);
    expect(tagIds.length).toBeGreaterThan(0);
    const doc = await post("/v3/scanZip", { data: ZIP });
    expect(jsonIds(doc.scan_results.tests, false)).toEqual(ids(want));
    expect(jsonIds(doc.scan_results.tests, false)).toEqual(expect.arrayContaining([...tagIds, "/zip_size", "/click_tag"]));
    expect(doc.scan_results).toMatchObject(counts(want));
  });

  it("a VAST tag: the XML and per-media-file tests", async () => {
    const want = evaluateVast(fullVastReport(), 0);
    const doc = await post("/v3/scanVAST", { data: VAST });
    expect(jsonIds(doc.scan_results.tests, true)).toEqual(ids(want));
    expect(doc.scan_results).toMatchObject(counts(want));
    expect(want.tests.some((t) => t.group === "creative_0_mediafile_0")).toBe(true);
  });

  it("v2 reports carry none", async () => {
    expect(await post("/v2/scanTag", { data: TAG })).not.toHaveProperty("scan_results");
    expect(await post("/v2/scanZip", { data: ZIP })).not.toHaveProperty("scan_results");
  });
});

describe("scan_results over gRPC", () => {
  let server: GrpcServer;
  let client: ReturnType<typeof createClient<typeof scan.ScanService>>;

  beforeAll(async () => {
    const dispatcher = new FakeDispatcher();
    dispatcher.editReport = asWorkerReturnsIt;
    const { app, ctx } = await buildEdge({
      auth: new FakeAuth().client(), reports: new FakeReportStore().client(), dispatcher, config: testConfig(), logger: pino({ level: "silent" }),
    });
    await app.ready();
    server = await startGrpcServer({ port: 0, host: "127.0.0.1", useCases: ctx.useCases, limits: ctx.deps.config.limits, isKnownSpecId: ctx.isKnownSpecId, logger: ctx.deps.logger });
    client = createClient(scan.ScanService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.port}` }));
  });
  afterAll(async () => {
    await server?.close();
  });
  const headers = { "x-apikey": "key-a" };
  const data = new TextEncoder().encode("<div>ad</div>");

  it("the same tests as the JSON API, the render of a zip without its own, none on v2", async () => {
    const tag = (await client.scanTagV3({ data }, { headers })).report!;
    expect(ids(tag.scanResults!)).toEqual(ids(evaluateTag(fullTagReport(), 0)));
    expect(tag.scanResults!.reportUrl).toMatch(/\/r\//);
    expect(tag.scanResults!.tests.every((t) => t.result !== TestOutcome.UNSPECIFIED)).toBe(true);

    const zip = (await client.scanZipV3({ data: Buffer.from(ZIP, "base64") }, { headers })).report!;
    expect(ids(zip.scanResults!)).toEqual(ids(evaluateZip(fullZipReport(), 0)));
    expect(zip.render!.scanResults).toBeUndefined();

    const vast = (await client.scanVast({ url: "https://ads.example/vast.xml" }, { headers })).report!;
    expect(ids(vast.scanResults!)).toEqual(ids(evaluateVast(fullVastReport(), 0)));

    expect((await client.scanTagV2({ data }, { headers })).report!.scanResults).toBeUndefined();
    expect((await client.scanZip({ data: Buffer.from(ZIP, "base64") }, { headers })).report!.scanResults).toBeUndefined();
  });
});
