// Reservations, in-flight caps and idempotency keys end to end: real NATS, auth (with its reaper), report-store
// and edge processes, and a scripted tag worker whose "hold-at-gate" scans wait at this test's gate server, so
// every slow scan ends when the test decides — on evidence, never on a timer.
import { once, EventEmitter } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { createAuthStore, type AuthStore } from "@cva/auth";
import { scan } from "@cva/contracts";
import { freePort, until } from "@cva/platform/testing/index.ts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { processSecretsEnv } from "../../scripts/lib/secrets.ts";
import { builtEntry } from "../../scripts/lib/services.ts";
import { INHERITED_SECRETS_DROPPED } from "../../scripts/lib/stack.ts";
import { supervise, type Supervised } from "../../scripts/lib/supervisor.ts";
import { freshBundles } from "../harness/bundles.ts";
import { b64, repoRoot, startStack, type TestStack } from "../harness/stack.ts";

const HELD = (n: string) => `<div style="width:300px;height:250px">hold-at-gate ${n}</div>`;
const QUICK = (n: string) => `<div style="width:300px;height:250px">quick ${n}</div>`;
const CAP = 2;

// Holds each GET /<job id> until released with "ok" or "fail".
class Gate extends EventEmitter {
  private pending = new Map<string, http.ServerResponse>();
  seen: string[] = [];
  private server = http.createServer((req, res) => {
    const job = (req.url ?? "/").slice(1);
    this.seen.push(job);
    this.pending.set(job, res);
    this.emit("arrived");
  });
  async listen(): Promise<string> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  get waiting(): number {
    return this.pending.size;
  }
  // Resolves once `n` scans wait at the gate (bounded).
  async holding(n: number, ms = 30_000): Promise<void> {
    const end = Date.now() + ms;
    while (this.pending.size < n) {
      const left = end - Date.now();
      if (left <= 0) throw new Error(`gate: ${this.pending.size} scans waiting, expected ${n}`);
      await Promise.race([once(this, "arrived"), new Promise((r) => setTimeout(r, left))]);
    }
  }
  release(verdict: "ok" | "fail" = "ok"): void {
    for (const res of this.pending.values()) res.end(verdict);
    this.pending.clear();
  }
  close(): void {
    this.release();
    this.server.closeAllConnections();
    this.server.close();
  }
}

async function post(url: string, body: unknown, key: string, idempotencyKey?: string) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-apikey": key, ...(idempotencyKey !== undefined ? { "idempotency-key": idempotencyKey } : {}) },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: JSON.parse(text) };
}

const ENV = {
  CUSTOMER_MAX_IN_FLIGHT: String(CAP),
  // A short reservation TTL (scan 12 s + 3 × 3 s) and a fast reaper, so the abandoned scan below is refunded within
  // the test's time; 12 s leaves a loaded machine room to release the held scans before they time out, and 3 s auth
  // on a loaded machine room to answer (a reservation whose answer is lost is asked again, then refunded).
  SCAN_TIMEOUT_MS: "12000",
  RPC_TIMEOUT_MS: "3000",
  RESERVATION_REAP_INTERVAL_MS: "200",
};

describe("reservations, in-flight caps and idempotency keys, end to end", () => {
  let stack: TestStack;
  let store: AuthStore;
  let edgeB: Supervised | undefined;
  const gate = new Gate();
  const used = async (customer: string) => (await store.getCustomer(customer))!.usedThisMonth;

  // A second edge replica on the same stack (same NATS user, same auth and report-store).
  async function startSecondEdge(): Promise<string> {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    edgeB = supervise(
      [
        {
          name: "edge-b",
          // As the stack runs its edge: the bundle when it is fresh (test/harness/bundles.ts).
          entry: freshBundles(repoRoot) ? builtEntry(repoRoot, "edge") : `${repoRoot}/edge/src/main.ts`,
          env: {
            ...ENV,
            ...processSecretsEnv(stack.secrets, "edge"),
            NATS_URL: stack.natsUrl,
            PORT: String(port),
            GRPC_PORT: String(await freePort()),
            METRICS_PORT: "0",
            PUBLIC_BASE_URL: stack.baseUrl,
            AUTH_URL: `http://127.0.0.1:${stack.ports.auth}`,
            REPORT_STORE_URL: `http://127.0.0.1:${stack.ports.reportStore}`,
            WORKER_HEARTBEAT_MS: "300",
          },
        },
      ],
      { restart: false, dropEnv: INHERITED_SECRETS_DROPPED, out: (l) => stack.logs.push(l) },
    );
    const warm = await stack.createKey("warm-up-b", 1000);
    await until("the second edge to scan", async () => (await post(`${baseUrl}/v3/scanTag`, { data: b64(QUICK("wb")) }, warm).catch(() => ({ status: 0 }))).status, (s) => s === 200, 60_000);
    return baseUrl;
  }

  beforeAll(async () => {
    const gateUrl = await gate.listen();
    stack = await startStack({
      only: ["auth", "report-store", "edge"],
      env: ENV,
      extra: [{ name: "tag-gated", entry: `${repoRoot}/test/fixtures/scripted-tag-worker.ts`, env: { SERVER_LOCATION: "usa", SLOTS: "8", GATE_URL: gateUrl } }],
    });
    store = await createAuthStore(stack.nc);
    const warm = await stack.createKey("warm-up", 1000);
    await until("the worker's heartbeat at the edge", async () => (await post(`${stack.baseUrl}/v3/scanTag`, { data: b64(QUICK("w")) }, warm)).status, (s) => s === 200, 60_000);
  }, 120_000);
  // A test that failed with scans still at the gate must not leave them there for the next one to count.
  afterEach(() => gate.release());
  afterAll(async () => {
    gate.close();
    await edgeB?.stop();
    await stack?.stop();
  });

  it(`holds at most ${CAP} scans of one customer in flight; the others are refused uncharged; another customer is served`, async () => {
    const key = await stack.createKey("capped", 100);
    const other = await stack.createKey("neighbour", 100);
    const answered: Array<Awaited<ReturnType<typeof post>>> = [];
    const all = Array.from({ length: 4 }, (_, i) => post(`${stack.baseUrl}/v3/scanTag`, { data: b64(HELD(`cap-${i}`)) }, key).then((r) => (answered.push(r), r)));
    // What answered instead, should fewer arrive (a reservation refused or unanswered under load).
    await gate.holding(CAP).catch((e: Error) => {
      throw new Error(`${e.message}; answered: ${JSON.stringify(answered.map((r) => [r.status, r.json]))}`);
    });
    // The refused ones answer while the first two are still held at the gate.
    await until("the two refusals", async () => answered.length, (n) => n >= 2, 15_000);
    expect(gate.waiting).toBe(CAP);
    expect(answered).toHaveLength(2);
    for (const r of answered) {
      expect(r.status).toBe(400);
      expect(r.json).toEqual({
        error_type: "processing_error",
        message: `too many scans rendering on the tag scanner (ad tags and zips) in flight for this customer: at most ${CAP} at once; retry when one has finished`,
      });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(gate.waiting).toBe(CAP);
    const neighbour = await post(`${stack.baseUrl}/v3/scanTag`, { data: b64(QUICK("n")) }, other);
    expect(neighbour.status).toBe(200);
    expect(gate.waiting).toBe(CAP);

    gate.release();
    const done = await Promise.all(all);
    expect(done.filter((r) => r.status === 200)).toHaveLength(CAP);
    expect(await used("capped")).toBe(CAP);
    // Committed: nothing of theirs is left for the reaper.
    expect((await store.listHeld()).filter((h) => h.customerId === "capped")).toEqual([]);
  });

  it("answers a retry with the same key and body with the first report, byte for byte, charged once", async () => {
    const key = await stack.createKey("idem-seq", 100);
    const body = { data: b64(QUICK("seq")), name: "first", workspace_id: 3 };
    const first = await post(`${stack.baseUrl}/v3/scanTag`, body, key, "order-1001");
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // Same request, other JSON layout: a retry.
    const retry = await post(`${stack.baseUrl}/v3/scanTag`, { workspace_id: 3, name: "first", data: body.data, unknown_field: 1 }, key, "order-1001");
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.text).toBe(first.text);
    expect(await used("idem-seq")).toBe(1);

    const other = await post(`${stack.baseUrl}/v3/scanTag`, { ...body, name: "second" }, key, "order-1001");
    expect(other.status).toBe(400);
    expect(other.json).toEqual({
      error_type: "payload_error",
      message: "Idempotency-Key: already used in the last 24 h for a different request; use a new key for a new request",
    });
    // The same key on another endpoint is another request too.
    expect((await post(`${stack.baseUrl}/v2/scanTag`, { data: body.data }, key, "order-1001")).json.error_type).toBe("payload_error");
    // Keys are per customer.
    const stranger = await stack.createKey("idem-stranger", 100);
    const theirs = await post(`${stack.baseUrl}/v3/scanTag`, body, stranger, "order-1001");
    expect(theirs.status).toBe(200);
    expect(theirs.json.job_id).not.toBe(first.json.job_id);
    expect(await used("idem-seq")).toBe(1);

    for (const bad of ["x".repeat(256), "caf\u00e9"]) {
      const r = await post(`${stack.baseUrl}/v3/scanTag`, body, key, bad);
      expect(r.status).toBe(400);
      expect(r.json.error_type).toBe("payload_error");
      expect(r.json.message).toMatch(/^Idempotency-Key: /);
    }
    expect(await used("idem-seq")).toBe(1);
  });

  it("a retry while the first scan runs waits for it and answers the same job; the worker scans once", async () => {
    const key = await stack.createKey("idem-wait", 100);
    const body = { data: b64(HELD("wait")) };
    const seenBefore = gate.seen.length;
    const first = post(`${stack.baseUrl}/v3/scanTag`, body, key, "wait-1");
    await gate.holding(1);
    const firstJob = gate.seen.at(-1)!;
    const retry = post(`${stack.baseUrl}/v3/scanTag`, body, key, "wait-1");
    // The edge says so when the retry found the first scan running and waits for it.
    await until("the retry to wait", async () => stack.logs.some((l) => l.includes(`"waiting_for":"${firstJob}"`)), (yes) => yes, 10_000);
    expect(await used("idem-wait")).toBe(1);
    gate.release();
    const [a, b] = await Promise.all([first, retry]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.json.job_id).toBe(a.json.job_id);
    expect(b.text).toBe(a.text);
    expect(gate.seen.length - seenBefore).toBe(1);
    expect(await used("idem-wait")).toBe(1);
  });

  it("a failed scan does not pin its key: the retry runs again and only it is charged", async () => {
    const key = await stack.createKey("idem-fail", 100);
    const body = { data: b64(HELD("fail")) };
    const first = post(`${stack.baseUrl}/v3/scanTag`, body, key, "flaky-1");
    await gate.holding(1);
    const failedJob = gate.seen.at(-1);
    gate.release("fail");
    const failed = await first;
    expect(failed.status).toBe(400);
    expect(failed.json.error_type).toBe("processing_error");
    expect(await used("idem-fail")).toBe(0);

    const retry = post(`${stack.baseUrl}/v3/scanTag`, body, key, "flaky-1");
    await gate.holding(1);
    expect(gate.seen.at(-1)).not.toBe(failedJob);
    gate.release("ok");
    const ok = await retry;
    expect(ok.status).toBe(200);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
    expect(await used("idem-fail")).toBe(1);
  });

  it("honours the idempotency-key metadata over gRPC, also for a scan first made over JSON", async () => {
    const key = await stack.createKey("idem-grpc", 100);
    const client = createClient(scan.ScanService, createGrpcTransport({ baseUrl: stack.grpcUrl }));
    const html = QUICK("grpc");
    const headers = (k: string) => ({ "x-apikey": key, "idempotency-key": k });
    const a = await client.scanTagV3({ data: new TextEncoder().encode(html), name: "g" }, { headers: headers("g-1") });
    const b = await client.scanTagV3({ data: new TextEncoder().encode(html), name: "g" }, { headers: headers("g-1") });
    expect(a.report?.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.report?.jobId).toBe(a.report?.jobId);
    expect(b.report?.scanResults?.reportUrl).toBe(a.report?.scanResults?.reportUrl);

    const viaJson = await post(`${stack.baseUrl}/v3/scanTag`, { data: b64(html), name: "j" }, key, "j-1");
    const viaGrpc = await client.scanTagV3({ data: new TextEncoder().encode(html), name: "j" }, { headers: headers("j-1") });
    expect(viaGrpc.report?.jobId).toBe(viaJson.json.job_id);
    await expect(client.scanTagV3({ data: new TextEncoder().encode(html), name: "other" }, { headers: headers("j-1") })).rejects.toMatchObject({
      rawMessage: "Idempotency-Key: already used in the last 24 h for a different request; use a new key for a new request",
    });
    expect(await used("idem-grpc")).toBe(2);
  });

  // The last two kill edges: the first kills the stack's edge and goes on with a second one, the second kills that.
  let secondEdge: string;

  it("a retry with the key on another edge finishes the scan whose edge died, from the worker's stored result, charged once", async () => {
    secondEdge = await startSecondEdge();
    const key = await stack.createKey("taken-over", 5);
    const body = { data: b64(HELD("taken-over")), name: "orphaned" };
    const first = post(`${stack.baseUrl}/v3/scanTag`, body, key, "survive-1").catch(() => undefined);
    await gate.holding(1);
    const job = gate.seen.at(-1)!;
    stack.kill("edge");
    expect(await first).toBeUndefined();
    // The worker finishes after its edge died: its result is stored, nobody is there to hear it.
    gate.release();
    const retry = await post(`${secondEdge}/v3/scanTag`, body, key, "survive-1");
    expect(retry.status).toBe(200);
    expect(retry.json.job_id).toBe(job);
    expect(retry.json.name).toBe("orphaned");
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    // The log line reaches us through the process's stdout pipe, possibly after the answer did.
    await until("the take-over's log line", async () => stack.logs.some((l) => l.includes("finished the scan of an edge that is gone")), (yes) => yes, 10_000);
    expect(await used("taken-over")).toBe(1);
    expect((await store.listHeld()).filter((h) => h.customerId === "taken-over")).toEqual([]);
    // Stored like any report, and the next retry is a plain replay of it.
    const again = await post(`${secondEdge}/v3/scanTag`, body, key, "survive-1");
    expect(again.text).toBe(retry.text);
    const stored = await fetch(`${secondEdge}/v3/reports/${job}`, { headers: { "x-apikey": key } });
    expect(await stored.text()).toBe(retry.text);
    expect(await used("taken-over")).toBe(1);
  }, 90_000);

  it("refunds a scan whose edge died mid-scan once its reservation expires (the reaper, not the edge)", async () => {
    const key = await stack.createKey("abandoned", 5);
    const pending = post(`${secondEdge}/v3/scanTag`, { data: b64(HELD("abandoned")) }, key).catch(() => undefined);
    await gate.holding(1);
    expect(await used("abandoned")).toBe(1);
    const held = (await store.listHeld()).filter((h) => h.customerId === "abandoned");
    expect(held).toHaveLength(1);
    edgeB!.children().get("edge-b")!.kill("SIGKILL");
    await pending;
    gate.release();
    // TTL = 12 s scan + 3 × 3 s; the reaper sweeps every 200 ms.
    await until("the reaper's refund", () => used("abandoned"), (n) => n === 0, 45_000);
    expect(Date.now()).toBeGreaterThanOrEqual(held[0]!.expiresUnixMs);
    expect((await store.listHeld()).filter((h) => h.customerId === "abandoned")).toEqual([]);
  }, 60_000);
});
