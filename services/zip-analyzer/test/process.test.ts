import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  ErrorType, NetworkResponseSchema, NetworkSchema, ScanKind, TagReportSchema, zipanalyzer, type Bundle,
} from "@cva/contracts";
import { connectNats, createDispatcher, silentLogger, startWorker, withCredential, type Dispatcher, type NatsConnection } from "@cva/platform";
import { startNatsServer, testCredentials, testSecrets, until } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ZIP_LIMITS } from "../src/limits.ts";
import { startZipAnalyzerProcess, type ZipAnalyzerProcess } from "../src/server.ts";
import { ORIGIN, zipJob } from "./fixtures.ts";
import { buildZip } from "./zip-writer.ts";

/**
 * The whole path over a real NATS: requester → SCAN_KIND_ZIP worker → render as a SCAN_KIND_TAG job → a stand-in
 * tag worker → zip report back; and the direct AnalyzeZip RPC.
 */
const INDEX = '<html><head><meta name="ad.size" content="width=300,height=250"><script>var clickTag="https://x.example";</script></head><body><script src="a.js"></script></body></html>';

describe("zip-analyzer process", () => {
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let nc: NatsConnection;
  let requester: Dispatcher;
  let proc: ZipAnalyzerProcess;
  let tagWorker: { stop(): Promise<void> };
  const rendered: Bundle[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connectNats(nats.url, "zip-test");
    const logger = silentLogger();
    tagWorker = await startWorker(nc, {
      kind: ScanKind.TAG,
      location: "usa",
      slots: 2,
      logger,
      async handle(job) {
        const bundle = job.input.case === "tag" && job.input.value.creative.case === "bundle" ? job.input.value.creative.value : undefined;
        if (!bundle) throw new Error("expected a bundle");
        rendered.push(bundle);
        return {
          case: "tag",
          value: create(TagReportSchema, {
            jobId: job.jobId,
            creativeRendered: true,
            network: create(NetworkSchema, {
              responses: [
                create(NetworkResponseSchema, { url: `${ORIGIN}/index.html`, resourceType: "document", status: 200 }),
                create(NetworkResponseSchema, { url: "https://cdn.example.com/lib.js", resourceType: "script", status: 200 }),
              ],
            }),
          }),
        };
      },
    });
    proc = await startZipAnalyzerProcess({
      nc, logger, port: 0, metricsPort: 0, credentials: testCredentials, location: "usa", slots: 2, limits: DEFAULT_ZIP_LIMITS, bundleOrigin: ORIGIN,
    });
    requester = await createDispatcher(nc, { logger });
    await until("the zip and tag workers' heartbeats", async () => [requester.liveWorkers(ScanKind.ZIP).length, requester.liveWorkers(ScanKind.TAG).length], ([zip, tag]) => zip > 0 && tag > 0);
  });

  afterAll(async () => {
    await proc?.close();
    await tagWorker?.stop();
    await requester?.close();
    await nc?.close();
    await nats?.stop();
  });

  it("answers a zip job through the queue, rendering through a tag job", async () => {
    const zip = buildZip([{ name: "banner/index.html", data: INDEX }, { name: "banner/a.js", data: "window.a=1;" }]);
    const result = await requester.submit(zipJob(zip, "zip-queue-1"), { timeoutMs: 20_000 });
    expect(result.outcome.case).toBe("zip");
    const report = result.outcome.case === "zip" ? result.outcome.value : undefined;
    expect(report).toMatchObject({ clickTagFound: true, metaAdSize: true, minified: true, hasExternalAssets: true, entryPoint: "banner/index.html" });
    expect(report?.render?.jobId).toBe("zip-queue-1");
    expect(report?.render?.declaredDimensions).toMatchObject({ width: 300, height: 250 });
    const bundle = rendered.at(-1);
    expect(bundle?.entry).toBe("index.html");
    expect(bundle?.files.map((f) => f.path)).toEqual(["index.html", "a.js"]);
  });

  it("answers a hostile zip with a payload error", async () => {
    const result = await requester.submit(zipJob(buildZip([{ name: "../evil.js", data: "x" }]), "zip-queue-2"), { timeoutMs: 20_000 });
    expect(result.outcome).toEqual({
      case: "error",
      value: expect.objectContaining({ type: ErrorType.PAYLOAD, message: 'zip entry "../evil.js" escapes the archive root (path traversal)' }),
    });
  });

  it("serves AnalyzeZip directly", async () => {
    const client = createClient(zipanalyzer.ZipAnalyzerService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${proc.port}`, interceptors: [withCredential(testSecrets.service)] }));
    const ok = await client.analyzeZip({ job: zipJob(buildZip([{ name: "index.html", data: INDEX }]), "zip-rpc-1") });
    expect(ok.report).toMatchObject({ clickTagFound: true, entryPoint: "index.html" });
    const refused = await client.analyzeZip({ job: zipJob(Buffer.from("not a zip"), "zip-rpc-2") }).catch((e: unknown) => ConnectError.from(e));
    expect(refused).toMatchObject({ code: Code.InvalidArgument, rawMessage: "the data is not a zip archive" });
  });
});
