// The service as deployed: SCAN_KIND_TAG jobs over a real NATS, and the direct ScanTag RPC. Reports carry no
// scan_results: the edge evaluates the spec set (edge/src/scan/outcome.ts).
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ScanJobSchema, ScanKind, tagscanner } from "@cva/contracts";
import {
  connectNats, createDispatcher, withCredential, createMemoryArtifactSink, createOutboundPolicy, silentLogger, type Dispatcher, type NatsConnection,
} from "@cva/platform";
import { startNatsServer, testCredentials, testSecrets, until } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTagScannerProcess, type TagScannerProcess } from "../src/server.ts";
import { tagJob } from "./helpers.ts";

describe("tag-scanner process", () => {
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let nc: NatsConnection;
  let requester: Dispatcher;
  let proc: TagScannerProcess;
  const artifacts = createMemoryArtifactSink();
  const creative = `<div style="width:300px;height:250px;background:#a0a"></div>`;

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectNats(nats.url, "tag-scanner-test");
    const logger = silentLogger();
    proc = await startTagScannerProcess({
      nc, logger, policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]), artifacts, port: 0, metricsPort: 0, credentials: testCredentials,
      location: "usa", pool: { browsers: 1, slots: 1 }, timeouts: { renderMs: 10_000, holdMs: 800 },
    });
    requester = await createDispatcher(nc, { logger });
    await until("the tag worker's heartbeat", async () => requester.liveWorkers(ScanKind.TAG).length, (n) => n > 0);
  });

  afterAll(async () => {
    await proc?.close();
    await requester?.close();
    await nc?.close();
    await nats?.stop();
  });

  it("answers a v3 tag job through the queue, without scan_results (the edge's)", async () => {
    const result = await requester.submit(tagJob(creative), { timeoutMs: 45_000 });
    expect(result.outcome.case).toBe("tag");
    const report = result.outcome.case === "tag" ? result.outcome.value : undefined;
    expect(report?.dimensions).toMatchObject({ width: 300, height: 250 });
    expect(report?.meta?.serverLocation).toBe("usa");
    expect(report?.scanResults).toBeUndefined();
  });

  it("serves ScanTag directly and refuses a job without a tag", async () => {
    const client = createClient(tagscanner.TagScannerService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${proc.port}`, interceptors: [withCredential(testSecrets.service)] }));
    const ok = await client.scanTag({ job: tagJob(creative, { apiVersion: "v2" }) });
    expect(ok.report?.creativeRendered).toBe(true);
    expect(ok.report?.scanResults).toBeUndefined();
    const refused = await client.scanTag({ job: create(ScanJobSchema, { jobId: "x", kind: ScanKind.TAG }) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.InvalidArgument);
  });
});
