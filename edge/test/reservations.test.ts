// The edge's side of reservations and idempotency keys, against the in-memory fakes: what it asks auth for, when it
// commits or refunds, and how auth's answers become documented errors. The real behaviour (auth, report-store, edge
// processes) is proven in test/e2e/reservations.test.ts.
import { Code, ConnectError } from "@connectrpc/connect";
import { ScanKind } from "@cva/contracts";
import { until } from "@cva/platform/testing/index.ts";
import { describe, expect, it } from "vitest";
import { requestHash } from "../src/scan/request-hash.ts";
import { parseIdempotencyKey } from "../src/validation/idempotency-key.ts";
import { appPerTest, type TestApp, testConfig, TAG, VAST, ZIP } from "./fakes.ts";

type App = TestApp;
const setup = appPerTest();
const post = (app: App["app"], url: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: "POST", url, headers: { "x-apikey": "key-a", ...headers }, payload: payload as object });

describe("reservations", () => {
  it("reserves with a TTL of the scan time-out plus the store and commit calls, and commits once the report is stored", async () => {
    const { app, authFake, store } = await setup();
    const res = await post(app, "/v3/scanTag", { data: TAG });
    expect(res.statusCode).toBe(200);
    const req = authFake.reserveRequests[0]!;
    // testConfig: scan time-out 5 000 ms, RPC time-out 200 ms.
    expect(req.ttlMs).toBe(5_600n);
    expect(req.idempotencyKey ?? "").toBe("");
    expect(authFake.commits).toHaveLength(1);
    expect(authFake.calls.indexOf("commitQuota")).toBeGreaterThan(authFake.calls.indexOf("reserveQuota"));
    expect(store.reports).toHaveLength(1);
    // Without a key the protobuf report is not stored twice.
    expect(store.reports[0]!.reportBinary).toHaveLength(0);
    expect(authFake.refunds).toEqual([]);
  });

  it("asks again when a commit fails (CommitQuota is idempotent): the stored report is charged, nothing refunded", async () => {
    const { app, authFake } = await setup();
    authFake.commitFailures = 4;
    const res = await post(app, "/v3/scanTag", { data: TAG });
    expect(res.statusCode).toBe(200);
    expect(authFake.calls.filter((c) => c === "commitQuota")).toHaveLength(5);
    expect(authFake.commits).toHaveLength(1);
    expect(authFake.refunds).toEqual([]);
  });

  it("stops asking at the reservation's expiry when auth stays unreachable: the report, left to the reaper", async () => {
    // Reservation TTL: scan time-out 600 ms + 3 × 200 ms RPC time-out.
    const { app, authFake } = await setup({ config: testConfig({ scanTimeoutMs: 600 }) });
    authFake.commitFailures = 1_000;
    const t0 = Date.now();
    const res = await post(app, "/v3/scanTag", { data: TAG });
    expect(res.statusCode).toBe(200);
    expect(Date.now() - t0).toBeLessThan(1_200 + 1_000);
    expect(authFake.calls.filter((c) => c === "commitQuota").length).toBeGreaterThan(2);
    expect(authFake.commits).toEqual([]);
    expect(authFake.refunds).toEqual([]);
  });

  it("charges a delivered scan anew when the reaper refunded its reservation before the commit: charged once, with a new reservation", async () => {
    const { app, authFake } = await setup();
    authFake.expiredBeforeCommit = 1;
    const before = authFake.quota.get("cust-a")!;
    const res = await post(app, "/v3/scanTag", { data: TAG }, { "idempotency-key": "late-1" });
    expect(res.statusCode).toBe(200);
    expect(authFake.reserveRequests).toHaveLength(2);
    const [first, second] = authFake.reserveRequests;
    expect(second!.jobId).toBe(first!.jobId);
    expect(second!.reservationId).not.toBe(first!.reservationId);
    // The key already names this job: the new charge is made without it.
    expect(second!.idempotencyKey ?? "").toBe("");
    expect(authFake.commits).toEqual([second!.reservationId]);
    expect(authFake.quota.get("cust-a")).toBe(before - 1);
    expect(authFake.refunds).toEqual([]);
  });

  it("asks again with its own reservation id when auth's answer is lost: one reservation, charged once", async () => {
    const { app, authFake } = await setup();
    authFake.lostReserveAnswers = 1;
    const before = authFake.quota.get("cust-a")!;
    const res = await post(app, "/v3/scanTag", { data: TAG });
    expect(res.statusCode).toBe(200);
    const [first, again] = authFake.reserveRequests;
    expect(first!.reservationId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(again!.reservationId).toBe(first!.reservationId);
    expect(authFake.commits).toEqual([first!.reservationId]);
    expect(before - authFake.quota.get("cust-a")!).toBe(1);
    expect(authFake.refunds).toEqual([]);
  });

  it("refunds by its id a reservation whose answers never came, so no in-flight slot stays held until the reaper", async () => {
    const { app, authFake } = await setup();
    authFake.lostReserveAnswers = 2;
    const before = authFake.quota.get("cust-a")!;
    const res = await post(app, "/v3/scanTag", { data: TAG });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error_type: "processing_error", message: "the quota service is unavailable; retry later" });
    const rid = authFake.reserveRequests[0]!.reservationId;
    await until("the refund", async () => authFake.refunds, (r) => r.includes(rid), 5_000);
    expect(authFake.quota.get("cust-a")).toBe(before);
    expect(authFake.commits).toEqual([]);
  });

  it("refunds instead of committing when the scan fails", async () => {
    const { app, authFake, dispatcher } = await setup();
    dispatcher.behaviour = "processing";
    const res = await post(app, "/v3/scanTag", { data: TAG });
    expect(res.statusCode).toBe(400);
    expect(authFake.commits).toEqual([]);
    expect(authFake.refunds).toHaveLength(1);
  });

  it("asks for the in-flight cap of every lane the scan runs on: CUSTOMER_MAX_IN_FLIGHT, else half the live slots, at least 1", async () => {
    const fixed = await setup({ config: testConfig({ maxInFlightPerCustomer: 3 }) });
    await post(fixed.app, "/v3/scanTag", { data: TAG });
    expect(fixed.authFake.reserveRequests[0]!.inFlightCaps.map((c) => ({ lane: c.lane, max: c.max }))).toEqual([{ lane: "tag", max: 3 }]);
    await fixed.app.close();

    const derived = await setup();
    const slots: Partial<Record<ScanKind, number[]>> = { [ScanKind.TAG]: [6, 7], [ScanKind.ZIP]: [2], [ScanKind.VAST]: [5], [ScanKind.MEDIA]: [1] };
    derived.dispatcher.liveWorkers = (kind: ScanKind) => (slots[kind] ?? []).map((n) => ({ slots: n })) as never;
    await post(derived.app, "/v3/scanTag", { data: TAG });
    await post(derived.app, "/v2/scanZip", { data: ZIP });
    await post(derived.app, "/v3/scanVAST", { data: VAST });
    // A zip renders on the tag scanner, a VAST's media files are probed by the media prober: they count there too.
    expect(derived.authFake.reserveRequests.map((r) => r.inFlightCaps.map((c) => `${c.lane} ${c.max}`))).toEqual([["tag 6"], ["zip 1", "tag 6"], ["vast 2", "media 1"]]);
    expect(derived.authFake.reserveRequests.every((r) => !r.maxInFlight)).toBe(true);
  });

  it("answers auth's refusals with the documented errors", async () => {
    const { app, authFake } = await setup({ config: testConfig({ maxInFlightPerCustomer: 2, retryAfterSeconds: 3 }) });
    authFake.reserveError = new ConnectError("2 scans already in flight on tag; at most 2 at once", Code.FailedPrecondition, { "cva-in-flight-lane": "tag" });
    const capped = await post(app, "/v3/scanTag", { data: TAG });
    expect(capped.statusCode).toBe(400);
    expect(JSON.parse(capped.body)).toEqual({
      error_type: "processing_error",
      message: "too many scans rendering on the tag scanner (ad tags and zips) in flight for this customer: at most 2 at once; retry when one has finished",
    });
    expect(capped.headers["retry-after"]).toBe("3");
    // The lane auth names: a zip refused on its own lane.
    authFake.reserveError = new ConnectError("2 scans already in flight on zip; at most 2 at once", Code.FailedPrecondition, { "cva-in-flight-lane": "zip" });
    const zipCapped = await post(app, "/v3/scanZip", { data: ZIP });
    expect(JSON.parse(zipCapped.body).message).toBe("too many zip scans in flight for this customer: at most 2 at once; retry when one has finished");

    authFake.reserveError = new ConnectError("idempotency_key is already used with a different request", Code.AlreadyExists);
    const conflict = await post(app, "/v3/scanTag", { data: TAG }, { "idempotency-key": "k1" });
    expect(JSON.parse(conflict.body)).toEqual({
      error_type: "payload_error",
      message: "Idempotency-Key: already used in the last 24 h for a different request; use a new key for a new request",
    });
    expect(authFake.commits).toEqual([]);
  });
});

describe("Idempotency-Key", () => {
  it("is validated as a payload field, before any quota is reserved", async () => {
    const { app, authFake } = await setup();
    const cases: Array<[string, RegExp]> = [
      ["", /must not be empty/],
      ["x".repeat(256), /longer than 255 characters/],
      ["caf\u00e9", /only printable ASCII/],
    ];
    for (const [key, message] of cases) {
      const res = await post(app, "/v3/scanTag", { data: TAG }, { "idempotency-key": key });
      expect(res.statusCode, JSON.stringify(key)).toBe(400);
      const body = JSON.parse(res.body);
      expect(body.error_type).toBe("payload_error");
      expect(body.message).toMatch(/^Idempotency-Key: /);
      expect(body.message).toMatch(message);
    }
    expect(authFake.calls).not.toContain("reserveQuota");
    expect(parseIdempotencyKey(" spaces, dots. and * > are fine ~")).toBe(" spaces, dots. and * > are fine ~");
    expect(() => parseIdempotencyKey(["a", "b"])).toThrow(/send one value/);
  });

  it("is sent to auth with the request's hash, and the stored report keeps its protobuf for gRPC retries", async () => {
    const { app, authFake, store } = await setup();
    const res = await post(app, "/v3/scanTag", { data: TAG, name: "n" }, { "idempotency-key": "order-1" });
    expect(res.statusCode).toBe(200);
    const req = authFake.reserveRequests[0]!;
    expect(req.idempotencyKey).toBe("order-1");
    expect(req.requestHash).toBe(requestHash({ kind: "tag_v3", html: "<div>ad</div>", specId: 0, workspaceId: 0, name: "n" }));
    expect(store.reports[0]!.reportBinary.length).toBeGreaterThan(0);
  });

  it("hashes the validated request: layout-independent, sensitive to every option and to the endpoint", () => {
    const base = { kind: "tag_v3", html: "<b>x</b>", specId: 0, workspaceId: 0, name: "" } as const;
    expect(requestHash({ ...base })).toBe(requestHash({ name: "", workspaceId: 0, specId: 0, html: "<b>x</b>", kind: "tag_v3" }));
    expect(requestHash(base)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const others = [
      requestHash({ ...base, html: "<b>y</b>" }),
      requestHash({ ...base, name: "n" }),
      requestHash({ ...base, workspaceId: 1 }),
      requestHash({ kind: "tag_v2", html: "<b>x</b>", targeting: {} }),
      requestHash({ kind: "tag_v2", html: "<b>x</b>", targeting: { device: "mobile" } }),
      requestHash({ kind: "zip_v2", zip: new Uint8Array([1]), targeting: {} }),
      requestHash({ kind: "zip_v2", zip: new Uint8Array([2]), targeting: {} }),
    ];
    expect(new Set([requestHash(base), ...others]).size).toBe(others.length + 1);
  });
});
