// Known truth for the SIMID player harness: three SIMID creatives of ours, served by a local fixture server under a
// named host mapped to loopback (through the egress proxy and the outbound policy, as any creative): one that follows
// SIMID 1.1, one that never answers SIMID:Player:init, one that posts SIMID:Creative:fatalError. Time-outs are the
// harness's; the assertions wait on what the run reports, with tolerances on times.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ScanKind, ScanJobSchema, SimidInputSchema } from "@cva/contracts";
import { connectNats, createDispatcher, createOutboundPolicy, runChildJob, silentLogger, startEgressProxy, staticHostResolver } from "@cva/platform";
import { startNatsServer, until } from "@cva/platform/testing/index.ts";
import { type BrowserPool } from "../src/index.ts";
import { sharedBrowserPool } from "./shared-pool.ts";
import { runSimid, type SimidRunDeps } from "../src/simid/run-simid.ts";
import { startSimidWorker } from "../src/simid/simid-worker.ts";
import { send, startFixtureServer } from "./helpers.ts";

/** A SIMID creative of ours: `mode` decides how it answers Player:init. Every message it sends is a JSON string. */
function creative(mode: "good" | "mute" | "fatal" | "odd"): string {
  return `<!doctype html><html><body><p>creative</p><script>
const sessionId = "sess-" + Math.random().toString(36).slice(2);
let next = 0;
const post = (type, args) => parent.postMessage(JSON.stringify({ sessionId, messageId: next++, timestamp: Date.now(), type, args }), "*");
const answer = (type, m, value) => post(type, value === undefined ? { messageId: m.messageId } : { messageId: m.messageId, value });
window.addEventListener("message", (e) => {
  let m;
  try { m = JSON.parse(e.data); } catch { return; }
  if (m.type === "resolve" || m.type === "reject") return;
  if (m.type === "SIMID:Player:init") {
    ${mode === "good" ? `post("SIMID:Creative:log", { message: "adParameters=" + m.args.creativeData.adParameters + " version=" + m.args.environmentData.version });
    answer("resolve", m);` : mode === "fatal" ? `post("SIMID:Creative:fatalError", { errorCode: 1104, errorMessage: "no inventory for this placement" });`
      : mode === "odd" ? `post("SIMID:Player:init", {}); post("SIMID:Creative:requestVolume", { volume: 1 }); answer("resolve", m);` : "/* never answers */"}
  }
  if (m.type === "SIMID:Player:startCreative") {
    answer("resolve", m);
    post("SIMID:Creative:reportTracking", { trackingUrls: ["https://track.example/simid-start"] });
  }
});
post("createSession", {});
</script></body></html>`;
}

let srv: Awaited<ReturnType<typeof startFixtureServer>>;
let pool: BrowserPool;
let deps: SimidRunDeps;
let port = "";
const url = (path: string) => `http://simid.creative.test:${port}${path}`;

beforeAll(async () => {
  srv = await startFixtureServer({
    "/good.html": send("text/html", creative("good")),
    "/mute.html": send("text/html", creative("mute")),
    "/fatal.html": send("text/html", creative("fatal")),
    "/odd.html": send("text/html", creative("odd")),
    "/silent.html": send("text/html", "<!doctype html><p>no SIMID here</p>"),
  });
  port = new URL(srv.origin).port;
  pool = sharedBrowserPool(2);
  deps = {
    pool,
    policy: createOutboundPolicy(["127.0.0.0/8"], { resolve: staticHostResolver({ "simid.creative.test": "127.0.0.1" }) }),
    startProxy: (policy, listenOn) => startEgressProxy({ policy, listenOn }),
    // Generous: the creatives answer at once, but a loaded 2-core machine can starve a renderer for a second or more.
    timeouts: { sessionMs: 8_000, initMs: 3_000, startMs: 3_000, watchMs: 800 },
  };
});
afterAll(async () => {
  await pool?.close();
  await srv?.close();
});

const input = (path: string) => create(SimidInputSchema, { url: url(path), adParameters: '{"sku":"a<b>"}', clickThruUrl: "https://brand.example/", durationSeconds: 15 });
const deadline = () => Date.now() + 30_000;

describe("SIMID player harness", () => {
  it("a well-behaved creative: session, init and startCreative resolved, in order, with its messages", async () => {
    const r = await runSimid(deps, input("/good.html"), { deadline: deadline() });
    expect(r).toMatchObject({ url: url("/good.html"), run: true, error: "", sessionCreated: true, initResolved: true, initRejected: false, startResolved: true, startRejected: false, errors: [] });
    expect(r.sessionMs).toBeGreaterThanOrEqual(0);
    expect(r.initMs).toBeGreaterThanOrEqual(0);
    expect(r.initMs).toBeLessThan(3_000);
    expect(r.startMs).toBeGreaterThanOrEqual(0);
    expect(r.startMs).toBeLessThan(3_000);
    expect(r.messages.map((m) => m.type)).toEqual(["createSession", "SIMID:Creative:log", "resolve", "resolve", "SIMID:Creative:reportTracking"]);
    // Player:init carried the spec's creativeData and environmentData.
    expect(r.messages[1]!.detail).toBe('message: adParameters={"sku":"a<b>"} version=1.1');
    expect(r.messages[4]!.detail).toBe('trackingUrls: ["https://track.example/simid-start"]');
    const at = r.messages.map((m) => m.atMs);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(r).toMatchObject({ sessionTimeoutMs: 8_000, initTimeoutMs: 3_000, startTimeoutMs: 3_000 });
    expect(srv.seen.filter((s) => s.url === "/good.html")).toHaveLength(1);
  });

  it("a creative that never answers Player:init: session created, init timed out, startCreative never sent", async () => {
    const r = await runSimid(deps, input("/mute.html"), { deadline: deadline() });
    expect(r).toMatchObject({ run: true, sessionCreated: true, initResolved: false, initRejected: false, initMs: -1, startResolved: false, startMs: -1 });
    expect(r.errors).toEqual(["no answer to SIMID:Player:init within 3 s"]);
    expect(r.messages.map((m) => m.type)).toEqual(["createSession"]);
  });

  it("a creative that posts SIMID:Creative:fatalError: reported with its errorCode and message; the run ends", async () => {
    const r = await runSimid(deps, input("/fatal.html"), { deadline: deadline() });
    expect(r).toMatchObject({ run: true, sessionCreated: true, initResolved: false, startResolved: false, startMs: -1 });
    expect(r.errors).toEqual(["SIMID:Creative:fatalError, errorCode 1104: no inventory for this placement"]);
    expect(r.messages.map((m) => [m.type, m.errorCode])).toEqual([["createSession", 0], ["SIMID:Creative:fatalError", 1104]]);
    expect(r.messages[1]!.detail).toBe("errorMessage: no inventory for this placement");
  });

  it("a message only a player sends is a protocol fault; an unlisted SIMID:Creative request is refused, not a fault", async () => {
    const r = await runSimid(deps, input("/odd.html"), { deadline: deadline() });
    expect(r).toMatchObject({ run: true, sessionCreated: true, initResolved: true, startResolved: true });
    expect(r.errors).toEqual(["SIMID:Player:init is not a message a creative sends (SIMID 1.1 §4.4)"]);
    expect(r.messages.map((m) => m.type)).toEqual(["createSession", "SIMID:Player:init", "SIMID:Creative:requestVolume", "resolve", "resolve", "SIMID:Creative:reportTracking"]);
  });

  it("a page that never creates a session, and a host the outbound policy refuses, say so", async () => {
    const quick = { ...deps, timeouts: { ...deps.timeouts, sessionMs: 2_500 } };
    const silent = await runSimid(quick, input("/silent.html"), { deadline: deadline() });
    expect(silent).toMatchObject({ run: true, sessionCreated: false, sessionMs: -1, initMs: -1, errors: ["no createSession within 2.5 s"] });
    const refused = await runSimid(quick, create(SimidInputSchema, { url: `http://10.0.0.1:${port}/good.html` }), { deadline: deadline() });
    expect(refused).toMatchObject({ run: true, sessionCreated: false });
    expect(refused.errors[0]).toBe("no createSession within 2.5 s");
    expect(refused.errors[1]).toMatch(/^the creative was not loaded: refused by the outbound policy: /);
    const notHttp = await runSimid(quick, create(SimidInputSchema, { url: "javascript:alert(1)" }), { deadline: deadline() });
    expect(notHttp).toMatchObject({ run: false, error: "not run: the InteractiveCreativeFile is not an http(s) URL (javascript:)" });
  });

  // The production path: the VAST analyzer submits a SCAN_KIND_SIMID job (simid-via-dispatcher.ts there); this
  // process's SIMID worker runs it on its pool, over a real NATS server.
  it("serves SCAN_KIND_SIMID jobs from the queue", async () => {
    const nats = await startNatsServer();
    const nc = await connectNats(nats.url, "simid-test");
    const logger = silentLogger();
    const worker = await startSimidWorker({ nc, logger, location: "usa", pool, policy: deps.policy, timeouts: deps.timeouts });
    const dispatcher = await createDispatcher(nc, { logger, defaultLocation: "usa" });
    try {
      await until("the SIMID worker's heartbeat", async () => dispatcher.liveWorkers(ScanKind.SIMID, "usa").length, (n) => n > 0, 20_000);
      const job = create(ScanJobSchema, { jobId: `simid-${Date.now()}`, kind: ScanKind.SIMID, apiVersion: "v3", input: { case: "simid", value: input("/good.html") } });
      const r = await runChildJob(dispatcher, job, { report: "simid", timeoutMs: 40_000, location: "usa" });
      expect(r).toMatchObject({ url: url("/good.html"), run: true, sessionCreated: true, initResolved: true, startResolved: true, errors: [] });
      const refused = await runChildJob(dispatcher, create(ScanJobSchema, { jobId: `simid-bad-${Date.now()}`, kind: ScanKind.SIMID, apiVersion: "v3", input: { case: "vast", value: { url: url("/good.html") } } }), { report: "simid", timeoutMs: 20_000, location: "usa" }).catch((e: Error) => e);
      expect(String(refused)).toContain("data: the job carries no SIMID creative");
    } finally {
      await dispatcher.close();
      await worker.stop();
      await nc.close();
      await nats.stop();
    }
  }, 90_000);
});
