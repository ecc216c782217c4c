import { describe, expect, it, vi } from "vitest";
import { Device, ScanKind } from "@cva/contracts";
import { appPerTest, type TestApp, TAG, VAST, ZIP } from "./fakes.ts";

type App = TestApp;
const setup = appPerTest();

const ENDPOINTS = [
  { url: "/v3/scanTag", data: TAG, kind: ScanKind.TAG },
  { url: "/v3/scanVAST", data: VAST, kind: ScanKind.VAST },
  { url: "/v2/scanTag", data: TAG, kind: ScanKind.TAG },
  { url: "/v2/scanZip", data: ZIP, kind: ScanKind.ZIP },
  { url: "/v3/scanZip", data: ZIP, kind: ScanKind.ZIP },
];

function expectError(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, type: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers["content-type"])).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body).sort()).toEqual(["error_type", "message"]);
  expect(body.error_type).toBe(type);
  expect(body.message).not.toMatch(/\bat .*\.ts:\d+|\/work\/|node_modules|127\.0\.0\.1/);
  return body.message as string;
}

describe("error/status matrix", () => {
  it("unknown paths and methods → 404 invalid_endpoint, before the key", async () => {
    const { app, authFake } = await setup();
    for (const [method, url] of [
      ["GET", "/v3/scanTag"], ["PUT", "/v3/scanTag"], ["DELETE", "/v2/scanZip"], ["GET", "/v3/scanZip"], ["POST", "/v4/scanZip"], ["POST", "/v4/scanTag"],
      ["POST", "/"], ["GET", "/index.html"], ["POST", "/v3/scantag"], ["POST", "/v3/reports/x"], ["GET", "/%E0%A4%A"], ["PATCH", "/healthz"],
    ] as const) {
      const res = await app.inject({ method, url, payload: method === "GET" ? undefined : { data: TAG } });
      expectError(res, 404, "invalid_endpoint");
    }
    expect(authFake.calls).toEqual([]);
  });

  for (const ep of ENDPOINTS) {
    describe(ep.url, () => {
      it("200 with a report", async () => {
        const { app, dispatcher, store } = await setup();
        const res = await app.inject({ method: "POST", url: ep.url, headers: { "x-apikey": "key-a" }, payload: { data: ep.data } });
        expect(res.statusCode).toBe(200);
        expect(JSON.parse(res.body).job_id).toMatch(/^[0-9a-f-]{36}$/);
        expect(dispatcher.jobs[0]!.kind).toBe(ep.kind);
        expect(Buffer.from(store.reports[0]!.json).toString()).toBe(res.body);
      });

      it("401 for a missing, empty, unknown or revoked key — before the payload", async () => {
        const { app, authFake } = await setup();
        for (const headers of [{}, { "x-apikey": "" }, { "x-apikey": "nope" }, { "x-apikey": "key-revoked" }]) {
          const res = await app.inject({ method: "POST", url: ep.url, headers, payload: "not json" });
          expectError(res, 401, "authentication_error");
        }
        expect(authFake.calls.filter((c) => c !== "authenticate")).toEqual([]);
      });

      it("400 payload_error for a bad body, without reserving quota", async () => {
        const { app, authFake } = await setup();
        for (const payload of ["not json", "[1]", "42", "", "null", JSON.stringify({ data: "%%%" })]) {
          const res = await app.inject({ method: "POST", url: ep.url, headers: { "x-apikey": "key-a", "content-type": "application/json" }, payload });
          expectError(res, 400, "payload_error");
        }
        const res = await app.inject({ method: "POST", url: ep.url, headers: { "x-apikey": "key-a", "content-type": "text/plain" }, payload: "x" });
        expectError(res, 400, "payload_error");
        expect(authFake.calls).not.toContain("reserveQuota");
      });

      it("429 quota_error when the quota is used up", async () => {
        const { app, authFake, dispatcher } = await setup();
        authFake.quota.set("cust-a", 0);
        const res = await app.inject({ method: "POST", url: ep.url, headers: { "x-apikey": "key-a" }, payload: { data: ep.data } });
        expectError(res, 429, "quota_error");
        expect(dispatcher.jobs).toHaveLength(0);
      });

      it("400 processing_error + Retry-After when no worker is free; quota refunded", async () => {
        const { app, authFake, dispatcher } = await setup();
        dispatcher.behaviour = "no-worker";
        const res = await app.inject({ method: "POST", url: ep.url, headers: { "x-apikey": "key-a" }, payload: { data: ep.data } });
        expect(expectError(res, 400, "processing_error")).toMatch(/no worker resources/);
        expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
        expect(authFake.refunds).toHaveLength(1);
        expect(authFake.quota.get("cust-a")).toBe(1000);
      });

      it("worker PAYLOAD error → 400 payload_error, refunded", async () => {
        const { app, authFake, dispatcher } = await setup();
        dispatcher.behaviour = "payload";
        const res = await app.inject({ method: "POST", url: ep.url, headers: { "x-apikey": "key-a" }, payload: { data: ep.data } });
        expect(expectError(res, 400, "payload_error")).toBe("data: the zip has no index.html");
        expect(authFake.refunds).toHaveLength(1);
      });

      it("worker PROCESSING error / time-out → processing_error with a generic message, refunded", async () => {
        for (const behaviour of ["processing", "timeout"] as const) {
          const { app, authFake, dispatcher } = await setup();
          dispatcher.behaviour = behaviour;
          const res = await app.inject({ method: "POST", url: ep.url, headers: { "x-apikey": "key-a" }, payload: { data: ep.data } });
          const msg = expectError(res, 400, "processing_error");
          expect(msg).not.toContain("/tmp");
          expect(res.headers["retry-after"]).toBeDefined();
          expect(authFake.refunds).toHaveLength(1);
          await app.close();
        }
      });
    });
  }

  it("a body over the limit → payload_error (not Fastify's 413), after the key check", async () => {
    const { app } = await setup();
    const big = JSON.stringify({ data: "A".repeat(16 * 1024 * 1024) });
    let res = await app.inject({ method: "POST", url: "/v2/scanZip", headers: { "x-apikey": "key-a", "content-type": "application/json" }, payload: big });
    expect(expectError(res, 400, "payload_error")).toMatch(/body/);
    res = await app.inject({ method: "POST", url: "/v2/scanZip", headers: { "content-type": "application/json" }, payload: big });
    expectError(res, 401, "authentication_error");
  });

  it("a hung auth service → processing_error within the RPC time-out", async () => {
    const { app, authFake } = await setup();
    authFake.hang = true;
    const res = await app.inject({ method: "POST", url: "/v3/scanTag", headers: { "x-apikey": "key-a" }, payload: { data: TAG } });
    expectError(res, 400, "processing_error");
  });

  it("a hung report store → processing_error, quota refunded", async () => {
    const { app, authFake, store } = await setup();
    store.hangPut = true;
    const res = await app.inject({ method: "POST", url: "/v3/scanTag", headers: { "x-apikey": "key-a" }, payload: { data: TAG } });
    expect(expectError(res, 400, "processing_error")).toBe("the report store is unavailable; retry later");
    expect(authFake.refunds).toHaveLength(1);
  });

  it("a report store that answers UNAVAILABLE for a moment (its NATS node failing over) → the report stored, the scan charged", async () => {
    const { app, authFake, store } = await setup();
    store.unavailablePuts = 2;
    const res = await app.inject({ method: "POST", url: "/v3/scanTag", headers: { "x-apikey": "key-a" }, payload: { data: TAG } });
    expect(res.statusCode, res.body).toBe(200);
    expect(store.putCalls).toBe(3);
    expect(store.reports).toHaveLength(1);
    expect(authFake.refunds).toHaveLength(0);
  });

  it("a refund left unanswered (auth failing over) is asked again, not left held until the reaper", async () => {
    const { app, authFake, store } = await setup();
    store.hangPut = true;
    authFake.refundFailures = 1;
    const res = await app.inject({ method: "POST", url: "/v3/scanTag", headers: { "x-apikey": "key-a" }, payload: { data: TAG } });
    expectError(res, 400, "processing_error");
    await vi.waitFor(() => expect(authFake.refunds).toHaveLength(1), { timeout: 5_000, interval: 50 });
    expect(authFake.calls.filter((c) => c === "refundQuota")).toHaveLength(2);
  });

  it("spec ids come from @cva/spec-sets", async () => {
    const { knownSpecId } = await import("../src/validation/spec-ids.ts");
    expect(knownSpecId(0)).toBe(true);
    expect(knownSpecId(-1)).toBe(false);
  });

  it("the job carries targeting, location and inputs", async () => {
    const { app, dispatcher } = await setup();
    await app.inject({
      method: "POST", url: "/v2/scanTag", headers: { "x-apikey": "key-a" },
      payload: { data: TAG, targeting: { device: "mobile", language: "nl-NL,nl;q=0.9", country: "nld", page_url: "https://news.example/" }, extra: 1 },
    });
    await app.inject({ method: "POST", url: "/v3/scanTag", headers: { "x-apikey": "key-a" }, payload: { data: TAG, spec_id: 7, workspace_id: 3, name: "x" } });
    const [v2, v3] = dispatcher.jobs;
    expect(v2!.apiVersion).toBe("v2");
    expect(v2!.targeting).toMatchObject({ device: 2, language: "nl-NL,nl;q=0.9", country: "nld", pageUrl: "https://news.example/" });
    expect(v2!.input.case).toBe("tag");
    expect(v3!.apiVersion).toBe("v3");
    expect(v3!.specId).toBe(7);
    expect(v3!.targeting).toMatchObject({ device: 1, language: "en-US", country: "usa" });
    expect(v3!.input.value).toMatchObject({ creative: { case: "html", value: "<div>ad</div>" }, captureLandingPage: true });
  });

  it("a v3 tag or zip job carries the request's targeting as v2's does (our extension), v3 defaults for the rest", async () => {
    const { app, dispatcher } = await setup();
    const post = async (url: string, payload: object) => {
      const res = await app.inject({ method: "POST", url, headers: { "x-apikey": "key-a" }, payload });
      expect(res.statusCode, res.body).toBe(200);
      return dispatcher.jobs.at(-1)!;
    };
    const tag = await post("/v3/scanTag", { data: TAG, spec_id: 0, targeting: { device: "mobile", language: "nl-NL,nl;q=0.9", country: "nld", page_url: "https://news.example/" } });
    expect(tag.apiVersion).toBe("v3");
    expect(tag.targeting).toMatchObject({ device: Device.MOBILE, language: "nl-NL,nl;q=0.9", country: "nld", pageUrl: "https://news.example/" });
    expect(tag.input.value).toMatchObject({ captureLandingPage: true });
    const langOnly = await post("/v3/scanTag", { data: TAG, targeting: { language: "de-DE" } });
    expect(langOnly.targeting).toMatchObject({ device: Device.DESKTOP, language: "de-DE", country: "usa", pageUrl: "" });
    // A zip takes device and language; a country is ignored as in v2 (the scan runs at the edge's location).
    const zip = await post("/v3/scanZip", { data: ZIP, targeting: { device: "mobile", language: "fr-FR", country: "nld" } });
    expect(zip.apiVersion).toBe("v3");
    expect(zip.targeting).toMatchObject({ device: Device.MOBILE, language: "fr-FR", country: "usa" });
    const none = await post("/v3/scanZip", { data: ZIP });
    expect(none.targeting).toMatchObject({ device: Device.DESKTOP, language: "en-US", country: "usa" });
  });
});
