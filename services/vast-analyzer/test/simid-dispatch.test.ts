// The production wiring of SIMID runs minus the processes: the analyzer's simid dependency submits SCAN_KIND_SIMID
// jobs (simid-via-dispatcher.ts) and a stand-in SIMID worker answers them, over a real NATS server. The tag scanner's
// own worker is pinned by services/tag-scanner/test/simid.test.ts ("serves SCAN_KIND_SIMID jobs from the queue").
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScanKind, VastSimidRunSchema, type SimidInput } from "@cva/contracts";
import { connectNats, createDispatcher, createOutboundPolicy, silentLogger, startWorker, type Dispatcher, type NatsConnection, type Worker } from "@cva/platform";
import { startNatsServer, until } from "@cva/platform/testing/index.ts";
import { createVastAnalyzer } from "../src/index.ts";
import { simidViaDispatcher } from "../src/simid-via-dispatcher.ts";
import { fakeProbe, startFixtureServer, vastJob, type FixtureServer } from "./fixtures.ts";

describe("SIMID creatives through the dispatcher", () => {
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let nc: NatsConnection;
  let dispatcher: Dispatcher;
  let worker: Worker | undefined;
  let srv: FixtureServer;
  const jobs: SimidInput[] = [];
  const logger = silentLogger();

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectNats(nats.url, "vast-simid-test");
    dispatcher = await createDispatcher(nc, { logger, defaultLocation: "usa" });
    srv = await startFixtureServer();
    srv.xml("/vast.xml", `<VAST version="4.2"><Ad><InLine><AdSystem>T</AdSystem><AdTitle>t</AdTitle><Creatives><Creative><Linear><Duration>00:00:10</Duration>
<AdParameters>p=1</AdParameters><MediaFiles><InteractiveCreativeFile type="text/html" apiFramework="SIMID">${srv.url("/simid.html")}</InteractiveCreativeFile></MediaFiles>
</Linear></Creative></Creatives></InLine></Ad></VAST>`);
  });
  afterAll(async () => {
    await worker?.stop();
    await dispatcher?.close();
    await nc?.close();
    await nats?.stop();
    await srv?.close();
  });

  const analyzer = () => createVastAnalyzer({
    policy: createOutboundPolicy(["127.0.0.0/8"]), probe: fakeProbe().probe, location: "usa", logger,
    simid: simidViaDispatcher(dispatcher, { location: "usa", timeoutMs: 20_000, logger }),
  });

  it("no SIMID worker: the file is listed as not run, with why", async () => {
    const r = await analyzer().analyze(vastJob(srv.url("/vast.xml"), "job-simid-none"));
    expect(r.simid).toEqual([expect.objectContaining({ url: srv.url("/simid.html"), run: false, error: "not run: no SIMID player worker answered" })]);
  });

  it("a SIMID worker runs it: its run is the report's, with the ad's index", async () => {
    worker = await startWorker(nc, {
      kind: ScanKind.SIMID, location: "usa", slots: 1, logger,
      handle: async (job) => {
        if (job.input.case !== "simid") throw new Error("not simid");
        jobs.push(job.input.value);
        return { case: "simid", value: create(VastSimidRunSchema, { url: job.input.value.url, run: true, sessionCreated: true, sessionMs: 50, initResolved: true, initMs: 2, startResolved: true, startMs: 1 }) };
      },
    });
    await until("the SIMID worker's heartbeat", async () => dispatcher.liveWorkers(ScanKind.SIMID, "usa").length, (n) => n > 0);
    const r = await analyzer().analyze(vastJob(srv.url("/vast.xml"), "job-simid-one"));
    expect(jobs.map((j) => [j.url, j.adParameters, j.durationSeconds])).toEqual([[srv.url("/simid.html"), "p=1", 10]]);
    expect(r.simid).toEqual([expect.objectContaining({ url: srv.url("/simid.html"), adIndex: 0, run: true, sessionCreated: true, initResolved: true, startResolved: true, error: "" })]);
  });
});
