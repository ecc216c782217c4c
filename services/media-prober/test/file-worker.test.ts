import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { ErrorType, FileInputSchema, ScanJobSchema, ScanKind, type FileInput, type ScanJob } from "@cva/contracts";
import {
  connectNats, createDispatcher, createMemoryArtifactSink, createOutboundPolicy, createUploadStore, silentLogger,
  type Dispatcher, type NatsConnection, type UploadStore,
} from "@cva/platform";
import { startNatsServer, testCredentials, until, type TestNatsServer } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMediaProberProcess, type MediaProberProcess } from "../src/server.ts";
import { ffmpeg, startFixtureServer, type FixtureServer } from "./fixtures.ts";

// The raw-file workers as deployed: the edge's NATS user streams a file into the uploads bucket and submits a
// SCAN_KIND_VIDEO_FILE / SCAN_KIND_AUDIO_FILE job naming it; the media prober's user reads it by reference, measures it
// and answers the report — or a payload_error naming the cause. Every step within each user's NATS permissions.

describe("media-prober: raw video and audio file jobs", () => {
  let nats: TestNatsServer;
  let edgeNc: NatsConnection;
  let proberNc: NatsConnection;
  let uploads: UploadStore;
  let requester: Dispatcher;
  let proc: MediaProberProcess;
  let server: FixtureServer;
  let dir: string;
  const artifacts = createMemoryArtifactSink();

  let n = 0;
  const job = (kind: ScanKind, input: FileInput): ScanJob =>
    create(ScanJobSchema, {
      jobId: `file-${++n}-${Date.now()}`, kind, apiVersion: "v3",
      input: kind === ScanKind.VIDEO_FILE ? { case: "videoFile", value: input } : { case: "audioFile", value: input },
    });
  const upload = async (name: string) => uploads.put(createReadStream(join(dir, name)), { mimeType: "application/octet-stream" });
  const stored = async (name: string, extra: { mime?: string; maxBytes?: bigint } = {}) => {
    const ref = await upload(name);
    return create(FileInputSchema, { source: { case: "stored", value: { object: ref.object, size: BigInt(ref.size), sha256: ref.sha256 } }, name, ...extra });
  };
  const sha256 = async (name: string) => createHash("sha256").update(await readFile(join(dir, name))).digest("hex");

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cva-file-worker-"));
    // As root the decoders run as an unprivileged user, who must traverse the work folder to the job's own.
    await chmod(dir, 0o711);
    await Promise.all([
      // 0.5 s of black, then 1 s of picture; 0.5 s of silence, then a tone.
      ffmpeg("-f", "lavfi", "-i", "color=black:s=320x180:r=25:d=0.5", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=1",
        "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo:d=0.5", "-f", "lavfi", "-i", "sine=f=440:d=1:sample_rate=48000",
        "-filter_complex", "[0][1]concat=n=2:v=1:a=0[v];[2][3]concat=n=2:v=0:a=1[a]", "-map", "[v]", "-map", "[a]",
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", join(dir, "spot.mp4")),
      ffmpeg("-f", "lavfi", "-i", "sine=f=1000:d=1.5:sample_rate=44100", "-c:a", "pcm_s16le", join(dir, "spot.wav")),
      // 30 minutes of silence: 0.3 MB whose audio pass takes far longer than a 5 s deadline.
      ffmpeg("-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "1800", "-c:a", "flac", join(dir, "long.flac")),
    ]);
    server = await startFixtureServer(dir);
    nats = await startNatsServer({ users: true });
    edgeNc = await connectNats(nats.url, "edge", { auth: nats.authFor("edge") });
    proberNc = await connectNats(nats.url, "media-prober", { auth: nats.authFor("media-prober") });
    const logger = silentLogger();
    // The edge's side first: it creates the scan stream, the results bucket and the uploads bucket.
    requester = await createDispatcher(edgeNc, { logger });
    uploads = await createUploadStore(edgeNc, { ttlMs: 600_000 });
    proc = await startMediaProberProcess({
      nc: proberNc, logger, policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]), artifacts, port: 0, metricsPort: 0,
      credentials: testCredentials, location: "usa", slots: 2, workDir: dir,
    });
    await until("the file workers' heartbeats", async () => requester.liveWorkers(ScanKind.VIDEO_FILE).length * requester.liveWorkers(ScanKind.AUDIO_FILE).length, (k) => k > 0, 20_000);
  }, 120_000);

  afterAll(async () => {
    await proc?.close();
    await requester?.close();
    await proberNc?.close();
    await edgeNc?.close();
    await nats?.stop();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("measures an uploaded video: the report carries the file's name, SHA-256 and the measured fields", async () => {
    const result = await requester.submit(job(ScanKind.VIDEO_FILE, await stored("spot.mp4", { mime: "video/mp4" })), { timeoutMs: 60_000 });
    expect(result.outcome.case).toBe("videoFile");
    const r = result.outcome.case === "videoFile" ? result.outcome.value : undefined;
    expect(r?.analysisError).toBe("");
    expect(r?.file).toMatchObject({ name: "spot.mp4", sha256: await sha256("spot.mp4"), mimeType: "video/mp4", declaredMimeType: "video/mp4", url: "" });
    expect(Number(r?.fileSize)).toBe((await readFile(join(dir, "spot.mp4"))).length);
    expect(r?.meta).toMatchObject({ creativeType: 4, apiVersion: "v3", serverLocation: "usa" });
    expect(r?.fileInfo?.video).toMatchObject({ width: 320, height: 180, scanType: "progressive", frameRateMode: "constant", chromaSubsampling: "4:2:0" });
    expect(r?.fileInfo?.container?.moovAtomPosition).toBe("beginning");
    expect(Math.abs(Number(r?.fileInfo?.content?.leadingBlackMs) - 500)).toBeLessThanOrEqual(40);
    expect(Math.abs(Number(r?.fileInfo?.content?.leadingSilenceMs) - 500)).toBeLessThanOrEqual(30);
    expect(Number(r?.durationMs)).toBeGreaterThan(1400);
    for (const img of [r?.poster, r?.filmStrip, r?.audioWave, r?.screenshot?.highres, r?.screenshot?.thumbnail]) expect(artifacts.get(img!.id)).toBeDefined();
    // Both sides stayed within their NATS permissions (the server logs every violation).
    expect(nats.log.filter((l) => /Permissions Violation/i.test(l))).toEqual([]);
  });

  it("measures an uploaded audio file", async () => {
    const result = await requester.submit(job(ScanKind.AUDIO_FILE, await stored("spot.wav")), { timeoutMs: 60_000 });
    expect(result.outcome.case).toBe("audioFile");
    const r = result.outcome.case === "audioFile" ? result.outcome.value : undefined;
    expect(r?.fileInfo?.audio).toMatchObject({ codec: "pcm_s16le", channels: 1, sampleRate: 44100, bitDepth: 16 });
    expect(r?.fileInfo?.video).toBeUndefined();
    expect(Number(r?.durationMs)).toBe(1500);
    expect(r?.meta?.creativeType).toBe(6);
    expect(artifacts.get(r!.audioWave!.id)).toBeDefined();
  });

  it("fetches a url under the outbound policy; the report names it and the file name comes from its path", async () => {
    const input = create(FileInputSchema, { source: { case: "url", value: `${server.base}/spot.mp4` } });
    const result = await requester.submit(job(ScanKind.VIDEO_FILE, input), { timeoutMs: 60_000 });
    const r = result.outcome.case === "videoFile" ? result.outcome.value : undefined;
    expect(r?.file).toMatchObject({ name: "spot.mp4", url: `${server.base}/spot.mp4`, sha256: await sha256("spot.mp4"), declaredMimeType: "application/octet-stream" });
  });

  it("answers payload_error naming the cause: not a video, the wrong kind, over the job's limit, an HTTP error, an unreachable host", async () => {
    const payload = async (j: ScanJob) => {
      const result = await requester.submit(j, { timeoutMs: 60_000 });
      expect(result.outcome.case).toBe("error");
      const e = result.outcome.case === "error" ? result.outcome.value : undefined;
      expect(e?.type).toBe(ErrorType.PAYLOAD);
      return e?.message;
    };
    const page = await uploads.put((async function* () { yield Buffer.from("<!DOCTYPE html><html><body>hi</body></html>"); })());
    const pageInput = create(FileInputSchema, { source: { case: "stored", value: { object: page.object, size: BigInt(page.size), sha256: page.sha256 } } });
    expect(await payload(job(ScanKind.VIDEO_FILE, pageInput))).toBe("not a video file: HTML document");
    expect(await payload(job(ScanKind.AUDIO_FILE, await stored("spot.mp4")))).toBe("not an audio file: it has a video stream (scan it as video)");
    expect(await payload(job(ScanKind.VIDEO_FILE, await stored("spot.mp4", { maxBytes: 1000n })))).toBe("the file is larger than the limit of 1000 bytes");
    const missing = create(FileInputSchema, { source: { case: "url", value: `${server.base}/nope.mp4` } });
    expect(await payload(job(ScanKind.VIDEO_FILE, missing))).toBe(`the file could not be fetched: ${new URL(server.base).host} answered HTTP 404 Not Found`);
    const closed = create(FileInputSchema, { source: { case: "url", value: "http://127.0.0.1:9/spot.mp4" } });
    expect(await payload(job(ScanKind.VIDEO_FILE, closed))).toMatch(/^the file could not be fetched: could not connect to 127\.0\.0\.1:9 \(ECONNREFUSED\)$/);
    const gone = await upload("spot.wav");
    await uploads.delete(gone.object);
    const goneInput = create(FileInputSchema, { source: { case: "stored", value: { object: gone.object, size: BigInt(gone.size), sha256: gone.sha256 } } });
    expect(await payload(job(ScanKind.AUDIO_FILE, goneInput))).toBe("the uploaded file is no longer stored");
  });

  it("a job whose deadline comes before its analysis ends answers in time with what was measured, saying why the rest was not", async () => {
    const started = Date.now();
    const result = await requester.submit(job(ScanKind.AUDIO_FILE, await stored("long.flac")), { timeoutMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    const r = result.outcome.case === "audioFile" ? result.outcome.value : undefined;
    expect(r?.analysisError).toBe("audio analysis stopped: the scan's deadline was reached");
    expect(r?.fileInfo?.audio).toMatchObject({ codec: "flac", channels: 2, sampleRate: 48000 });
    expect(r?.notMeasured).toEqual(expect.arrayContaining(["file_info.audio.loudness", "file_info.audio.clipping", "file_info.content.leading_silence_ms"]));
    expect(Number(r?.durationMs)).toBe(1_800_000);
  });

  it("a job whose kind and input disagree is a processing error (a requester bug), and the worker goes on", async () => {
    const wrong = create(ScanJobSchema, { jobId: `file-wrong-${Date.now()}`, kind: ScanKind.AUDIO_FILE, input: { case: "videoFile", value: await stored("spot.wav") } });
    const result = await requester.submit(wrong, { timeoutMs: 60_000 });
    expect(result.outcome).toMatchObject({ case: "error", value: { type: ErrorType.PROCESSING, message: "the file could not be measured" } });
    const next = await requester.submit(job(ScanKind.AUDIO_FILE, await stored("spot.wav")), { timeoutMs: 60_000 });
    expect(next.outcome.case).toBe("audioFile");
  });
});
