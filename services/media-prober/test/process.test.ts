import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { MediaInputSchema, mediaprober, ScanJobSchema, ScanKind, type ScanJob } from "@cva/contracts";
import {
  connectNats, createDispatcher, withCredential, createMemoryArtifactSink, createOutboundPolicy, silentLogger, type Dispatcher, type NatsConnection,
} from "@cva/platform";
import { startNatsServer, testCredentials, testSecrets, until } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMediaProberProcess, type MediaProberProcess } from "../src/server.ts";
import { ffmpeg, startFixtureServer, type FixtureServer } from "./fixtures.ts";

/** The service as deployed: SCAN_KIND_MEDIA jobs over a real NATS, and the direct ProbeMedia RPC. */
describe("media-prober process", () => {
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  let nc: NatsConnection;
  let requester: Dispatcher;
  let proc: MediaProberProcess;
  let server: FixtureServer;
  let dir: string;
  const artifacts = createMemoryArtifactSink();

  const job = (id: string, url: string): ScanJob =>
    create(ScanJobSchema, { jobId: id, kind: ScanKind.MEDIA, input: { case: "media", value: create(MediaInputSchema, { url }) } });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cva-media-proc-"));
    await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=1", "-f", "lavfi", "-i", "sine=f=440:d=1",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "-movflags", "+faststart",
      join(dir, "clip.mp4"));
    // 30 minutes of silence: 0.3 MB whose audio pass takes several seconds.
    await ffmpeg("-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "1800", "-c:a", "flac", join(dir, "long.flac"));
    server = await startFixtureServer(dir);
    nats = await startNatsServer();
    nc = await connectNats(nats.url, "media-prober-test");
    const logger = silentLogger();
    proc = await startMediaProberProcess({
      nc, logger, policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]), artifacts, port: 0, metricsPort: 0,
      credentials: testCredentials, location: "usa", slots: 2,
    });
    requester = await createDispatcher(nc, { logger });
    await until("the media worker's heartbeat", async () => requester.liveWorkers(ScanKind.MEDIA).length, (n) => n > 0);
  });

  afterAll(async () => {
    await proc?.close();
    await requester?.close();
    await nc?.close();
    await nats?.stop();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers a media job through the queue", async () => {
    const result = await requester.submit(job("media-queue-1", `${server.base}/clip.mp4`), { timeoutMs: 30_000 });
    expect(result.outcome.case).toBe("media");
    const probe = result.outcome.case === "media" ? result.outcome.value : undefined;
    expect(probe?.error).toBe("");
    expect(probe?.fileInfo?.video?.dimensions).toBe("320x180");
    expect(probe?.fileInfo?.container?.moovAtomPosition).toBe("beginning");
    expect(artifacts.get(probe!.poster!.id)).toBeDefined();
  });

  it("a job whose deadline comes before its analysis ends answers in time, saying the deadline cut it", async () => {
    // The requester waits 5 s (the job's deadline); the prober keeps 1.5 s of it to reply. The audio pass alone takes
    // over 6 s on an idle machine.
    const started = Date.now();
    const result = await requester.submit(job("media-queue-deadline", `${server.base}/long.flac`), { timeoutMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.outcome.case).toBe("media");
    expect(result.outcome.value).toMatchObject({ error: "", analysisError: "audio analysis stopped: the scan's deadline was reached" });
    // Healthy for the next job.
    const next = await requester.submit(job("media-queue-after-deadline", `${server.base}/clip.mp4`), { timeoutMs: 30_000 });
    expect(next.outcome.case === "media" && next.outcome.value.analysisError).toBe("");
  });

  it("a 404 through the queue is a probe with an error, not a failed job", async () => {
    const result = await requester.submit(job("media-queue-2", `${server.base}/nope.mp4`), { timeoutMs: 30_000 });
    expect(result.outcome.case).toBe("media");
    expect(result.outcome.value).toMatchObject({ httpCode: 404, error: expect.stringMatching(/HTTP 404/) });
  });

  it("serves ProbeMedia directly and refuses a job without media", async () => {
    const client = createClient(mediaprober.MediaProberService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${proc.port}`, interceptors: [withCredential(testSecrets.service)] }));
    const ok = await client.probeMedia({ job: job("media-rpc-1", `${server.base}/clip.mp4`) });
    expect(ok.probe?.fileInfo?.audio?.codec).toBe("aac");
    const refused = await client
      .probeMedia({ job: create(ScanJobSchema, { jobId: "media-rpc-2", kind: ScanKind.MEDIA }) })
      .catch((e: unknown) => ConnectError.from(e));
    expect(refused).toMatchObject({ code: Code.InvalidArgument, rawMessage: "job.media is required" });
  });
});
