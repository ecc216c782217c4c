import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MediaProbeSchema, ScanKind, type VastReport } from "@cva/contracts";
import {
  connectNats,
  createDispatcher,
  createOutboundPolicy,
  createSideEffectGuard,
  silentLogger,
  startWorker,
  type DispatchSettings,
  type Dispatcher,
  type JobOutcome,
  type NatsConnection,
  type Worker,
} from "@cva/platform";
import { startNatsServer } from "@cva/platform/testing/index.ts";
import { createVastAnalyzer } from "../src/index.ts";
import { runJob } from "../src/job.ts";
import { inlineVast, startFixtureServer, vastJob, type FixtureServer } from "./fixtures.ts";

// A job redelivered while its first delivery is still running — the first worker's event loop stalls past ack_wait,
// so it cannot send its in-progress heartbeat — fires the VAST's impression pixels once, not twice.
const settings: DispatchSettings = { ackWaitMs: 1000, maxDeliver: 3, queuePerSlot: 4, heartbeatTtlMs: 5000, heartbeatEveryMs: 300 };

// Blocks the whole event loop, as a CPU-bound stretch or a long GC pause does.
const stallEventLoop = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe("VAST impression pixels under redelivery", () => {
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let nc: NatsConnection;
  let dispatcher: Dispatcher;
  let srv: FixtureServer;
  const workers: Worker[] = [];
  const done: Array<{ delivery: number; outcome: JobOutcome }> = [];
  let bothDone: () => void = () => {};
  const bothDeliveries = new Promise<void>((r) => (bothDone = r));

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectNats(nats.url, "vast-once-test");
    dispatcher = await createDispatcher(nc, { logger: silentLogger(), defaultLocation: "usa", settings });
    srv = await startFixtureServer();
    srv.route("/pixel", (_req, res) => res.writeHead(200, { "content-type": "image/gif" }).end("GIF89a"));
    srv.xml("/vast.xml", inlineVast({ impressions: [srv.url("/pixel?i=a"), srv.url("/pixel?i=b")] }));
    const analyzer = createVastAnalyzer({
      policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
      probe: async (input) => create(MediaProbeSchema, { url: input.url }),
      location: "usa",
      sideEffects: await createSideEffectGuard(nc),
    });
    // Two workers on the same consumer, as two replicas are.
    for (const id of ["vast-a", "vast-b"]) {
      workers.push(
        await startWorker(nc, {
          kind: ScanKind.VAST,
          location: "usa",
          slots: 1,
          settings,
          workerId: id,
          logger: silentLogger(),
          async handle(job, ctx) {
            if (ctx.deliveryCount === 1) stallEventLoop(settings.ackWaitMs * 3);
            const outcome = await runJob(analyzer, job, { signal: ctx.signal });
            done.push({ delivery: ctx.deliveryCount, outcome });
            if (done.length === 2) bothDone();
            return outcome;
          },
        }),
      );
    }
  });

  afterAll(async () => {
    for (const w of workers) await w.stop();
    await dispatcher?.close();
    await nc?.drain();
    await nats?.stop();
    await srv?.close();
  });

  it("fires each impression URL once for a job delivered twice, and both deliveries report the same pixels", async () => {
    await expect.poll(() => dispatcher.liveWorkers(ScanKind.VAST).length, { timeout: 10_000 }).toBe(2);
    const result = await dispatcher.submit(vastJob(srv.url("/vast.xml"), "job-once-1"), { timeoutMs: 30_000 });
    await Promise.race([bothDeliveries, new Promise((_, reject) => setTimeout(() => reject(new Error("the job was not delivered twice")), 20_000))]);

    expect(done.map((d) => d.delivery).sort()).toEqual([1, 2]);
    const pixelHits = srv.hits.filter((h) => h.startsWith("/pixel"));
    expect(pixelHits.sort()).toEqual(["/pixel?i=a", "/pixel?i=b"]);
    const listed = done.map((d) => (d.outcome.case === "vast" ? (d.outcome.value as VastReport).impressionPixels : []));
    expect(listed[0]).toEqual([srv.url("/pixel?i=a"), srv.url("/pixel?i=b")]);
    expect(listed[1]).toEqual(listed[0]);
    // The requester got one of them, and it is the one stored for the job.
    expect(result.outcome.case).toBe("vast");
    expect(await dispatcher.resultOf("job-once-1", ScanKind.VAST)).toEqual(result);
  });

  it("claims a side effect for exactly one of many concurrent deliveries", async () => {
    const guard = await createSideEffectGuard(nc);
    const claims = await Promise.all(Array.from({ length: 8 }, () => guard.claim("job-once-2", "impressions")));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await guard.claim("job-once-3", "impressions")).toBe(true);
  });
});
