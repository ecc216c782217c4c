import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorType, ImageSchema, MediaProbeSchema, ScanKind, vastanalyzer, type MediaInput } from "@cva/contracts";
import {
  connectNats,
  createDirectRunner,
  createDispatcher,
  createOutboundPolicy,
  createSlots,
  silentLogger,
  startWorker,
  type Dispatcher,
  type NatsConnection,
  type RunJob,
  type Worker,
} from "@cva/platform";
import { startNatsServer, until } from "@cva/platform/testing/index.ts";
import { createVastAnalyzer } from "../src/index.ts";
import { runJob } from "../src/job.ts";
import { probeViaDispatcher } from "../src/probe-via-dispatcher.ts";
import { createVastAnalyzerService } from "../src/service.ts";
import { inlineVast, startFixtureServer, vastJob, wrapperVast, type FixtureServer } from "./fixtures.ts";

// The production wiring of main.ts, minus the process: a VAST worker whose probe submits SCAN_KIND_MEDIA jobs, and a
// stand-in media worker answering them, over a real NATS server.
describe("VAST worker with media probes through the dispatcher", () => {
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let nc: NatsConnection;
  let dispatcher: Dispatcher;
  let workers: Worker[] = [];
  let srv: FixtureServer;
  const mediaJobs: MediaInput[] = [];
  const logger = silentLogger();
  const policy = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectNats(nats.url, "vast-test");
    dispatcher = await createDispatcher(nc, { logger, defaultLocation: "usa" });
    srv = await startFixtureServer();
    srv.xml("/vast.xml", inlineVast({ media: [srv.url("/a.mp4"), srv.url("/b.mp4")] }));
    const analyzer = createVastAnalyzer({
      policy,
      probe: probeViaDispatcher(dispatcher, { location: "usa", timeoutMs: 20_000, logger }),
      logger,
      location: "usa",
    });
    workers.push(
      await startWorker(nc, {
        kind: ScanKind.MEDIA,
        location: "usa",
        slots: 2,
        logger,
        handle: async (job) => {
          if (job.input.case !== "media") throw new Error("not media");
          mediaJobs.push(job.input.value);
          return {
            case: "media",
            value: create(MediaProbeSchema, {
              url: job.input.value.url,
              httpCode: 200,
              firstFrame: create(ImageSchema, { id: "frame-1", mimeType: "image/jpeg" }),
              thumbnail: create(ImageSchema, { id: "thumb-1", mimeType: "image/jpeg" }),
            }),
          };
        },
      }),
      await startWorker(nc, {
        kind: ScanKind.VAST,
        location: "usa",
        slots: 2,
        logger,
        handle: (job, ctx) => runJob(analyzer, job, { signal: ctx.signal }),
      }),
    );
    // Workers announce themselves by heartbeat; wait until the dispatcher has seen both kinds.
    await until("the vast and media workers' heartbeats", async () => [dispatcher.liveWorkers(ScanKind.VAST).length, dispatcher.liveWorkers(ScanKind.MEDIA).length], ([vast, media]) => vast > 0 && media > 0);
  });

  afterAll(async () => {
    for (const w of workers) await w.stop();
    workers = [];
    await dispatcher?.close();
    await nc?.drain();
    await nats?.stop();
    await srv?.close();
  });

  it("answers a VAST job with probed media and the screenshot of the first frame", async () => {
    const result = await dispatcher.submit(vastJob(srv.url("/vast.xml"), "job-dispatch-1"), { timeoutMs: 30_000 });
    expect(result.outcome.case).toBe("vast");
    if (result.outcome.case !== "vast") return;
    const report = result.outcome.value;
    expect(report.creatives[0]!.mediafiles.map((m) => m.probe?.httpCode)).toEqual([200, 200]);
    expect(mediaJobs.map((m) => m.url).sort()).toEqual([srv.url("/a.mp4"), srv.url("/b.mp4")]);
    expect(mediaJobs[0]!.declared?.type).toBe("video/mp4");
    expect(report.screenshot?.highres?.id).toBe("frame-1");
    expect(report.screenshot?.thumbnail?.id).toBe("thumb-1");
  });

  it("a wrapper chain too slow for the job's time-out still answers with a report before it", async () => {
    // Five wrappers answering after 1.2 s each (7 s in all) behind a job the requester waits 10 s for: the scan's
    // deadline (10 s less the 2 s report reserve, less the pixel time-out for wrapper hops) stops the chain.
    for (let i = 0; i < 5; i++) {
      const body = i < 4 ? wrapperVast(srv.url(`/slow-${i + 1}.xml`)) : inlineVast({ media: [srv.url("/a.mp4")] });
      srv.route(`/slow-${i}.xml`, (_req, res) => {
        const t = setTimeout(() => res.writeHead(200, { "content-type": "application/xml" }).end(body), 1_200);
        res.on("close", () => clearTimeout(t));
      });
    }
    const started = Date.now();
    const result = await dispatcher.submit(vastJob(srv.url("/slow-0.xml"), "job-dispatch-slow"), { timeoutMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.outcome.case).toBe("vast");
    if (result.outcome.case !== "vast") return;
    expect(result.outcome.value.wrapperChain.at(-1)?.error).toMatch(/the scan's deadline was reached$/);
  });

  it("answers a refused VAST URL with a payload error", async () => {
    const result = await dispatcher.submit(vastJob("http://169.254.169.254/latest/", "job-dispatch-2"), { timeoutMs: 30_000 });
    expect(result.outcome.case).toBe("error");
    if (result.outcome.case !== "error") return;
    expect(result.outcome.value.type).toBe(ErrorType.PAYLOAD);
    expect(result.outcome.value.message).toMatch(/^data: the VAST URL/);
  });

  it("serves AnalyzeVast directly and refuses when every slot is busy", async () => {
    const analyzer = createVastAnalyzer({ policy, probe: async (i) => create(MediaProbeSchema, { url: i.url }), location: "usa" });
    const slots = createSlots(1);
    const run: RunJob = (job, ctx) => runJob(analyzer, job, ctx);
    const svc = createVastAnalyzerService(createDirectRunner({ label: "VAST analyzer", slots, run, logger, failureMessage: "the scan could not be completed" }));
    const ctx = { signal: new AbortController().signal } as Parameters<NonNullable<typeof svc.analyzeVast>>[1];
    const req = create(vastanalyzer.AnalyzeVastRequestSchema, { job: vastJob(srv.url("/vast.xml")) });
    const res = await svc.analyzeVast!(req, ctx);
    expect(res.report?.type).toBe("inline");
    slots.acquire();
    await expect(svc.analyzeVast!(req, ctx)).rejects.toThrow(/busy/);
    slots.release();
    const bad = create(vastanalyzer.AnalyzeVastRequestSchema, { job: vastJob("http://10.0.0.1/x.xml") });
    await expect(svc.analyzeVast!(bad, ctx)).rejects.toThrow(/outbound policy/);
  });
});
