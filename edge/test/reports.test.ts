import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { ScanKind, type VastReport } from "@cva/contracts";
import { createReadiness } from "../src/routes/ops.ts";
import { appPerTest, type TestApp, TAG, TEST_BASE, VAST } from "./fakes.ts";

type App = TestApp;
const setup = appPerTest();
const scan = (app: App["app"], key: string, url: string, payload: object) =>
  app.inject({ method: "POST", url, headers: { "x-apikey": key }, payload });

describe("stored reports", () => {
  it("GET /v3/reports/{job_id}: byte-identical for the owner, 404 for another customer, 401 without key", async () => {
    const { app } = await setup();
    const first = await scan(app, "key-a", "/v3/scanTag", { data: TAG, name: "a" });
    const jobId = JSON.parse(first.body).job_id;
    const again = await app.inject({ method: "GET", url: `/v3/reports/${jobId}`, headers: { "x-apikey": "key-a" } });
    expect(again.statusCode).toBe(200);
    expect(again.headers["content-type"]).toMatch(/^application\/json/);
    expect(again.body).toBe(first.body);
    const other = await app.inject({ method: "GET", url: `/v3/reports/${jobId}`, headers: { "x-apikey": "key-b" } });
    expect(other.statusCode).toBe(404);
    expect(JSON.parse(other.body).error_type).toBe("invalid_endpoint");
    expect((await app.inject({ method: "GET", url: `/v3/reports/${jobId}` })).statusCode).toBe(401);
    expect((await app.inject({ method: "GET", url: `/v3/reports/..%2F..`, headers: { "x-apikey": "key-a" } })).statusCode).toBe(404);
  });

  it("workspace listing: that customer's reports in that workspace, newest first, paginated", async () => {
    const { app, store } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await scan(app, "key-a", i % 2 ? "/v3/scanVAST" : "/v3/scanTag", { data: i % 2 ? VAST : TAG, workspace_id: 9, name: `r${i}` });
      ids.push(JSON.parse(res.body).job_id);
      store.reports.at(-1)!.createdUnixMs = BigInt(1_700_000_000_000 + i * 1000); // distinct, increasing times
    }
    await scan(app, "key-a", "/v3/scanTag", { data: TAG, workspace_id: 8 });
    await scan(app, "key-b", "/v3/scanTag", { data: TAG, workspace_id: 9 });

    const seen: Array<{ job_id: string; name: string; report_kind: string; created_at: string }> = [];
    let token = "";
    let pages = 0;
    do {
      const res = await app.inject({
        method: "GET",
        url: `/v3/workspaces/9/reports?page_size=2${token ? `&page_token=${encodeURIComponent(token)}` : ""}`,
        headers: { "x-apikey": "key-a" },
      });
      expect(res.statusCode).toBe(200);
      const body = JSON.parse(res.body);
      expect(body.reports.length).toBeLessThanOrEqual(2);
      seen.push(...body.reports);
      token = body.next_page_token;
      pages++;
    } while (token && pages < 10);
    expect(pages).toBe(3);
    expect(seen.map((r) => r.job_id)).toEqual([...ids].reverse());
    expect(seen[0]).toMatchObject({ name: "r4", report_kind: "tag_v3", created_at: new Date(1_700_000_004_000).toISOString() });
    expect(seen[1]!.report_kind).toBe("vast_v3");

    for (const q of ["/v3/workspaces/-1/reports", "/v3/workspaces/abc/reports", "/v3/workspaces/1/reports?page_size=0", "/v3/workspaces/1/reports?page_size=1000"]) {
      const res = await app.inject({ method: "GET", url: q, headers: { "x-apikey": "key-a" } });
      expect(res.statusCode, q).toBe(400);
      expect(JSON.parse(res.body).error_type).toBe("payload_error");
    }
    expect((await app.inject({ method: "GET", url: "/v3/workspaces/9/reports" })).statusCode).toBe(401);
  });

  it("artifacts: the image bytes, Content-Type, Content-Length = bytes in the report, long cache", async () => {
    const { app, store } = await setup();
    store.artifacts.set("shot1", { data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), mimeType: "image/png" });
    store.artifacts.set("evil", { data: new TextEncoder().encode("<script>"), mimeType: "text/html" });
    const report = JSON.parse((await scan(app, "key-a", "/v3/scanTag", { data: TAG })).body);
    const url = new URL(report.screenshot.highres.url);
    expect(url.origin).toBe(TEST_BASE);
    const res = await app.inject({ method: "GET", url: url.pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("image/png");
    expect(Number(res.headers["content-length"])).toBe(report.screenshot.highres.bytes);
    expect(res.rawPayload).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    expect(res.headers["cache-control"]).toMatch(/max-age=31536000/);
    expect((await app.inject({ method: "GET", url: "/artifacts/evil" })).headers["content-type"]).toBe("application/octet-stream");
    const missing = await app.inject({ method: "GET", url: "/artifacts/nope" });
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body).error_type).toBe("invalid_endpoint");
  });

  it("report page: HTML, everything escaped, no scripts; unknown token 404", async () => {
    const { app } = await setup();
    const report = JSON.parse((await scan(app, "key-a", "/v3/scanTag", { data: TAG, name: "<img src=x onerror=alert(1)>" })).body);
    const res = await app.inject({ method: "GET", url: new URL(report.scan_results.report_url).pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.body).not.toContain("<script");
    expect(res.body).not.toContain("<img src=x");
    expect(res.body).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(res.body).toContain("Uncaught &lt;script&gt;alert(1)&lt;/script&gt;");
    expect((await app.inject({ method: "GET", url: "/r/AAAAAAAAAAAAAAAAAAAAAA" })).statusCode).toBe(404);
  });
});

describe("report page shows the reasons", () => {
  it("VAST: why each test failed or was not evaluated, the analyzer's problems, and per media file what was not measured", async () => {
    const { app, dispatcher } = await setup();
    // What the prober says when its analysis pass timed out; the edge's scan_results say why loudness is not judged.
    dispatcher.editReport = (r) => {
      const probe = (r as VastReport).creatives[0]!.mediafiles[0]!.probe!;
      probe.fileInfo!.audio!.loudness = undefined;
      probe.analysisError = "media analysis timed out after 60 s";
      probe.notMeasured = ["file_info.audio.loudness"];
    };
    const report = JSON.parse((await scan(app, "key-a", "/v3/scanVAST", { data: VAST })).body);
    const page = (await app.inject({ method: "GET", url: new URL(report.scan_results.report_url).pathname })).body;
    expect(page).toContain(`<th scope="col">Why</th>`);
    expect(page).toContain("test could not be evaluated: the loudness was not measured: media analysis timed out after 60 s");
    expect(page).toContain("Problems found");
    expect(page).toContain("creative 1 (Linear) has no MediaFile: a player has nothing to play");
    expect(page).toContain("Nothing to play");
    expect(page).toContain("https://cdn.example.com/v.mp4");
    expect(page).toContain("1 not evaluated");
    expect(page).not.toContain("0 LUFS");
    expect(page).toContain("not measured");
  });
});

describe("operational endpoints", () => {
  it("/healthz is 200", async () => {
    const { app } = await setup();
    expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
  });

  it("/readyz follows deps.readiness", async () => {
    const { dispatcher } = await setup();
    let authOk = true;
    const readiness = createReadiness(dispatcher, { auth: async () => authOk, report_store: async () => true });
    const { app } = await setup({ readiness, dispatcher });
    let res = await app.inject({ method: "GET", url: "/readyz" });
    expect(res.statusCode).toBe(200);
    authOk = false;
    res = await app.inject({ method: "GET", url: "/readyz" });
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body).details.auth).toBe("not answering");
    authOk = true;
    dispatcher.workers[ScanKind.MEDIA] = 0;
    res = await app.inject({ method: "GET", url: "/readyz" });
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body).details.workers.media).toBe(0);
  });

  // Hostile: metrics on the public port. Answer: 404 invalid_endpoint, with or without a key (CONTRACT §5: anything
  // unlisted is 404); the counters live in the registry main.ts serves on METRICS_PORT (loopback) instead.
  it("/metrics is not on the public port; the edge's counters are in the registry for METRICS_PORT", async () => {
    const registry = new Registry();
    const { app } = await setup({ metricsRegistry: registry });
    await scan(app, "key-a", "/v3/scanTag", { data: TAG });
    for (const headers of [{}, { "x-apikey": "key-a" }]) {
      const res = await app.inject({ method: "GET", url: "/metrics", headers });
      expect(res.statusCode).toBe(404);
      expect(JSON.parse(res.body).error_type).toBe("invalid_endpoint");
    }
    expect(await registry.metrics()).toContain('cva_edge_scans_total{kind="tag_v3",outcome="ok"} 1');
    expect((await scan(app, "key-a", "/v3/scanTag", { data: TAG })).statusCode).toBe(200);
  });
});
