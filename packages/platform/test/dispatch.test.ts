import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { MediaProbeSchema, ScanJobSchema, ScanKind, type ScanJob } from "@cva/contracts";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectNats, consumerName, createDispatcher, NoWorkerError, silentLogger, startWorker, STREAM, type DispatchSettings, type Dispatcher, type NatsConnection } from "@cva/platform";
import { startNatsServer, until } from "@cva/platform/testing/index.ts";

const settings: DispatchSettings = { ackWaitMs: 1500, maxDeliver: 3, queuePerSlot: 2, heartbeatTtlMs: 3000, heartbeatEveryMs: 300 };
const job = (): ScanJob => create(ScanJobSchema, { jobId: randomUUID(), kind: ScanKind.MEDIA, input: { case: "media", value: { url: "x" } } });
/** Live media workers the dispatcher counts (of a location, or all), for until(). */
const liveCount = (d: Dispatcher, location?: string) => async () => d.liveWorkers(ScanKind.MEDIA, location).length;

function spawnWorker(env: Record<string, string>): { proc: ChildProcess; lines: string[]; ready: Promise<void> } {
  const proc = spawn(process.execPath, ["--import", "tsx", new URL("./fixtures/test-worker.ts", import.meta.url).pathname], {
    env: { ...process.env, ...env, WORKER_HEARTBEAT_MS: "300", SCAN_ACK_WAIT_MS: String(settings.ackWaitMs) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: string[] = [];
  const ready = new Promise<void>((resolve) => {
    proc.stdout!.on("data", (b: Buffer) => {
      for (const l of b.toString().split("\n").filter(Boolean)) {
        lines.push(l);
        if (l === "ready") resolve();
      }
    });
  });
  return { proc, lines, ready };
}

describe("dispatch over JetStream", () => {
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let nc: NatsConnection;
  let dispatcher: Dispatcher;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectNats(nats.url, "test");
    dispatcher = await createDispatcher(nc, { logger: silentLogger(), settings });
  });
  afterAll(async () => {
    children.forEach((c) => c.kill("SIGKILL"));
    await dispatcher?.close();
    await nc?.close();
    await nats?.stop();
  });

  /**
   * A worker's handler for usa and nld that holds each job `holdMs` and counts how many run at once; `live` waits for
   * its heartbeat in both locations, `sixAtOnce` submits three jobs to each and checks each answer came from its own.
   */
  function twoLocationWorker(holdMs: number) {
    let running = 0;
    let most = 0;
    const seenLocations: string[] = [];
    return {
      seenLocations,
      most: () => most,
      handle: async (j: ScanJob, ctx: { location: string }) => {
        running++;
        most = Math.max(most, running);
        seenLocations.push(ctx.location);
        await new Promise((r) => setTimeout(r, holdMs));
        running--;
        return { case: "media" as const, value: create(MediaProbeSchema, { url: `${ctx.location}:${j.jobId}` }) };
      },
      live: () => until("the worker's heartbeat in usa and nld", async () => [dispatcher.liveWorkers(ScanKind.MEDIA, "usa").length, dispatcher.liveWorkers(ScanKind.MEDIA, "nld").length], ([u, n]) => u === 1 && n === 1),
      async sixAtOnce() {
        const jobs = Array.from({ length: 6 }, (_, i) => ({ j: job(), location: i % 2 ? "nld" : "usa" }));
        const results = await Promise.all(jobs.map(({ j, location }) => dispatcher.submit(j, { timeoutMs: 20_000, location })));
        results.forEach((r, i) => expect(r.outcome.case === "media" && r.outcome.value.url).toBe(`${jobs[i]!.location}:${jobs[i]!.j.jobId}`));
      },
    };
  }

  it("answers 'no worker resources' at once when no worker of that kind runs", async () => {
    const started = Date.now();
    await expect(dispatcher.submit(job(), { timeoutMs: 10_000 })).rejects.toBeInstanceOf(NoWorkerError);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("routes by location and returns the worker's result", async () => {
    const usa = await startWorker(nc, { kind: ScanKind.MEDIA, location: "usa", slots: 2, logger: silentLogger(), settings, workerId: "w-usa",
      handle: async (j) => ({ case: "media", value: create(MediaProbeSchema, { url: `usa:${j.jobId}` }) }) });
    const nld = await startWorker(nc, { kind: ScanKind.MEDIA, location: "nld", slots: 2, logger: silentLogger(), settings, workerId: "w-nld",
      handle: async (j) => ({ case: "media", value: create(MediaProbeSchema, { url: `nld:${j.jobId}` }) }) });
    await until("both workers' heartbeats", liveCount(dispatcher), (n) => n === 2);
    const a = job();
    const b = job();
    const [ra, rb] = await Promise.all([dispatcher.submit(a, { timeoutMs: 10_000, location: "nld" }), dispatcher.submit(b, { timeoutMs: 10_000, location: "usa" })]);
    expect(ra.outcome.case === "media" && ra.outcome.value.url).toBe(`nld:${a.jobId}`);
    expect(rb.outcome.case === "media" && rb.outcome.value.url).toBe(`usa:${b.jobId}`);
    expect(ra.workerId).toBe("w-nld");
    await usa.stop();
    await nld.stop();
    // A stopping worker says so in its last heartbeat: requesters stop counting on it at once.
    await until("the stopped workers to drop out", liveCount(dispatcher), (n) => n === 0);
    await expect(dispatcher.submit(job(), { timeoutMs: 5000, location: "usa" })).rejects.toBeInstanceOf(NoWorkerError);
  });

  it("serves several locations from one worker (SERVER_LOCATION=usa,nld) within one set of slots", async () => {
    const w = twoLocationWorker(150);
    const both = await startWorker(nc, { kind: ScanKind.MEDIA, location: "usa,nld", slots: 2, logger: silentLogger(), settings, workerId: "w-both", handle: w.handle });
    await w.live();
    // One worker, counted once across locations.
    expect(dispatcher.liveWorkers(ScanKind.MEDIA)).toHaveLength(1);
    await w.sixAtOnce();
    expect(w.most()).toBeLessThanOrEqual(2);
    expect(new Set(w.seenLocations)).toEqual(new Set(["usa", "nld"]));
    await both.stop();
    await until("the stopped workers to drop out", liveCount(dispatcher), (n) => n === 0);
  });

  it("with slotOnArrival, serves several locations from one slot: a job takes the slot when it arrives, never more than one at once", async () => {
    const w = twoLocationWorker(100);
    const both = await startWorker(nc, { kind: ScanKind.MEDIA, location: "usa,nld", slots: 1, slotOnArrival: true, logger: silentLogger(), settings, workerId: "w-arrival", handle: w.handle });
    await w.live();
    // One at a time (each location's job starts whichever pull holds nothing), then six at once.
    for (const location of ["nld", "usa", "nld"]) {
      const j = job();
      const r = await dispatcher.submit(j, { timeoutMs: 20_000, location });
      expect(r.outcome.case === "media" && r.outcome.value.url).toBe(`${location}:${j.jobId}`);
    }
    await w.sixAtOnce();
    expect(w.most()).toBe(1);
    expect(new Set(w.seenLocations)).toEqual(new Set(["usa", "nld"]));
    await both.stop();
    await until("the stopped workers to drop out", liveCount(dispatcher), (n) => n === 0);
  });

  it("redelivers a job to another worker when the one holding it is killed", async () => {
    const doomed = spawnWorker({ NATS_URL: nats.url, WORKER_ID: "doomed", HOLD_MS: "60000", LOCATION: "usa" });
    children.push(doomed.proc);
    await doomed.ready;
    await until("the doomed worker's heartbeat", liveCount(dispatcher, "usa"), (n) => n === 1);
    const j = job();
    const pending = dispatcher.submit(j, { timeoutMs: 30_000, location: "usa" });
    await until("the doomed worker to take the job", async () => doomed.lines.includes(`took ${j.jobId}`), Boolean);
    doomed.proc.kill("SIGKILL");
    const survivor = spawnWorker({ NATS_URL: nats.url, WORKER_ID: "survivor", HOLD_MS: "0", LOCATION: "usa" });
    children.push(survivor.proc);
    const result = await pending;
    expect(result.workerId).toBe("survivor");
    expect(result.outcome.case === "media" && result.outcome.value.url).toBe(`survivor:${j.jobId}`);
  });

  it("refuses new jobs when every worker is busy and the queue is full", async () => {
    const release: Array<() => void> = [];
    const w = await startWorker(nc, { kind: ScanKind.MEDIA, location: "nld", slots: 1, logger: silentLogger(), settings, workerId: "slow",
      handle: (j) => new Promise((resolve) => release.push(() => resolve({ case: "media", value: create(MediaProbeSchema, { url: j.jobId }) }))) });
    await until("the slow worker's heartbeat", liveCount(dispatcher, "nld"), (n) => n === 1);
    const accepted = [dispatcher.submit(job(), { timeoutMs: 30_000, location: "nld" })];
    await until("the slow worker to take the first job", async () => release.length, (n) => n === 1);
    // slots 1 × queuePerSlot 2 → two may wait in the queue, the next is refused.
    accepted.push(dispatcher.submit(job(), { timeoutMs: 30_000, location: "nld" }));
    accepted.push(dispatcher.submit(job(), { timeoutMs: 30_000, location: "nld" }));
    // Evidence, not a pause: both are in the queue (published, not yet delivered) before the next is submitted.
    const jsm = await jetstreamManager(nc);
    await until("two jobs queued for nld", async () => (await jsm.consumers.info(STREAM, consumerName(ScanKind.MEDIA, "nld"))).num_pending, (n) => n === 2);
    await expect(dispatcher.submit(job(), { timeoutMs: 30_000, location: "nld" })).rejects.toThrow(/busy/);
    while (release.length) release.shift()!();
    await until("the second job to start", async () => release.length, (n) => n > 0);
    release.shift()!();
    await until("the third job to start", async () => release.length, (n) => n > 0);
    release.shift()!();
    const results = await Promise.all(accepted);
    expect(results).toHaveLength(3);
    await w.stop();
  });
});
