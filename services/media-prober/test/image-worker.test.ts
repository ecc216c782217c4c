import { createHash } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { ErrorType, FileInputSchema, ScanJobSchema, ScanKind, type FileInput, type ImageFileReport, type ScanJob } from "@cva/contracts";
import {
  connectNats, createDispatcher, createMemoryArtifactSink, createOutboundPolicy, createUploadStore, silentLogger,
  type Dispatcher, type NatsConnection, type UploadStore,
} from "@cva/platform";
import { startNatsServer, testCredentials, until, type TestNatsServer } from "@cva/platform/testing/index.ts";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMediaProberProcess, type MediaProberProcess } from "../src/server.ts";
import { startFixtureServer, type FixtureServer } from "./fixtures.ts";

// scanImage's queue worker as deployed: the edge's NATS user streams an image into the uploads bucket and submits a
// SCAN_KIND_IMAGE_FILE job (subject scan.job.image.<loc>) naming it; the media prober's user pulls it, measures it in
// the image decoder process and answers the ImageFileReport — within each user's NATS permissions. Every image is made
// here with sharp, its truth beside it.

const solid = (width: number, height: number, background: string) => sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
const frames = () => Promise.all(["#ff0000", "#00ff00", "#0000ff"].map((c) => solid(30, 20, c)));

describe("media-prober: image file jobs (scan.job.image.<location>)", () => {
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
  const job = (input: FileInput, kind = ScanKind.IMAGE_FILE): ScanJob =>
    create(ScanJobSchema, { jobId: `image-${++n}-${Date.now()}`, kind, apiVersion: "v3", input: { case: "imageFile", value: input } });
  const stored = async (bytes: Buffer, name: string, extra: { mime?: string; maxBytes?: bigint } = {}) => {
    const ref = await uploads.put((async function* () { yield bytes; })(), { mimeType: "application/octet-stream" });
    return create(FileInputSchema, { source: { case: "stored", value: { object: ref.object, size: BigInt(ref.size), sha256: ref.sha256 } }, name, ...extra });
  };
  const scan = async (bytes: Buffer, name: string): Promise<ImageFileReport> => {
    const result = await requester.submit(job(await stored(bytes, name)), { timeoutMs: 60_000 });
    if (result.outcome.case !== "imageFile") throw new Error(`expected an image report, got ${result.outcome.case}: ${JSON.stringify(result.outcome.value)}`);
    return result.outcome.value;
  };
  const payload = async (j: ScanJob) => {
    const result = await requester.submit(j, { timeoutMs: 60_000 });
    expect(result.outcome.case).toBe("error");
    const e = result.outcome.case === "error" ? result.outcome.value : undefined;
    expect(e?.type).toBe(ErrorType.PAYLOAD);
    return e?.message;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cva-image-worker-"));
    await chmod(dir, 0o711);
    await writeFile(join(dir, "banner.png"), await solid(300, 250, "#f4f4f4"));
    server = await startFixtureServer(dir);
    nats = await startNatsServer({ users: true });
    edgeNc = await connectNats(nats.url, "edge", { auth: nats.authFor("edge") });
    proberNc = await connectNats(nats.url, "media-prober", { auth: nats.authFor("media-prober") });
    const logger = silentLogger();
    requester = await createDispatcher(edgeNc, { logger });
    uploads = await createUploadStore(edgeNc, { ttlMs: 600_000 });
    proc = await startMediaProberProcess({
      nc: proberNc, logger, policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]), artifacts, port: 0, metricsPort: 0,
      credentials: testCredentials, location: "usa", slots: 1, workDir: dir,
    });
    await until("the image worker's heartbeat", async () => requester.liveWorkers(ScanKind.IMAGE_FILE).length, (k) => k > 0, 30_000);
  }, 120_000);

  afterAll(async () => {
    await proc?.close();
    await requester?.close();
    await proberNc?.close();
    await edgeNc?.close();
    await nats?.stop();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a 300x250 PNG: the IAB size, the file's name and SHA-256, meta image, the screenshot stored; no permission violation", async () => {
    const png = await solid(300, 250, "#f4f4f4");
    const r = await scan(png, "banner.png");
    expect(r).toMatchObject({ format: "png", mimeType: "image/png", width: 300, height: 250, aspectRatio: "6:5", iabSize: "300x250", animated: false, frameCount: 1, loopCount: 1, animationDurationMs: 0n, hasBorder: false });
    expect(r.file).toMatchObject({ name: "banner.png", sha256: createHash("sha256").update(png).digest("hex"), mimeType: "image/png", size: BigInt(png.length), url: "" });
    expect(Number(r.fileSize)).toBe(png.length);
    expect(r.meta).toMatchObject({ creativeType: 5, apiVersion: "v3", serverLocation: "usa" });
    expect(r.notMeasured).toEqual([]);
    expect(artifacts.get(r.screenshot!.id)).toBeDefined();
    expect(nats.log.filter((l) => /Permissions Violation/i.test(l))).toEqual([]);
  });

  it("animated GIF, delays 100/200/300 ms, 2 plays → 600 ms × 2 = 1200 ms", async () => {
    const gif = await sharp(await frames(), { join: { animated: true } }).gif({ loop: 2, delay: [100, 200, 300] }).toBuffer();
    expect(await scan(gif, "a.gif")).toMatchObject({ format: "gif", animated: true, frameCount: 3, loopCount: 2, animationDurationMs: 1200n });
  });

  it("animated WebP, delays 500/500/4000 ms looping forever → -1; the same with 3 plays → 15000 ms", async () => {
    const forever = await sharp(await frames(), { join: { animated: true } }).webp({ loop: 0, delay: [500, 500, 4000], lossless: true }).toBuffer();
    expect(await scan(forever, "f.webp")).toMatchObject({ format: "webp", animated: true, frameCount: 3, loopCount: 0, animationDurationMs: -1n });
    const three = await sharp(await frames(), { join: { animated: true } }).webp({ loop: 3, delay: [500, 500, 4000], lossless: true }).toBuffer();
    expect(await scan(three, "t.webp")).toMatchObject({ loopCount: 3, animationDurationMs: 15000n });
  });

  it("16-bit PNG → bit_depth 16; CMYK JPEG → cmyk", async () => {
    const png16 = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#336699" } }).toColourspace("rgb16").png().toBuffer();
    expect(await scan(png16, "deep.png")).toMatchObject({ bitDepth: 16, colorSpace: "srgb", hasAlpha: false });
    const cmyk = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#c81e1e" } }).toColourspace("cmyk").jpeg().toBuffer();
    expect(await scan(cmyk, "print.jpg")).toMatchObject({ format: "jpeg", colorSpace: "cmyk", bitDepth: 8 });
  });

  it("a JPEG with GPS EXIF → metadata.gps present at -33.8568, 151.2153, the camera's tags listed", async () => {
    const jpeg = await sharp({ create: { width: 32, height: 24, channels: 3, background: "#777777" } })
      .withExif({
        IFD0: { Make: "Acme", Model: "Snapper 3" },
        IFD3: { GPSLatitudeRef: "S", GPSLatitude: "33/1 51/1 2448/100", GPSLongitudeRef: "E", GPSLongitude: "151/1 12/1 5508/100" },
      })
      .jpeg()
      .toBuffer();
    const r = await scan(jpeg, "photo.jpg");
    expect(r.metadata?.gps).toMatchObject({ present: true, latitude: -33.8568, longitude: 151.2153 });
    expect(r.metadata?.exif).toMatchObject({ Make: "Acme", Model: "Snapper 3" });
  });

  it("fetches a url under the outbound policy; the name comes from its path", async () => {
    const result = await requester.submit(job(create(FileInputSchema, { source: { case: "url", value: `${server.base}/banner.png` } })), { timeoutMs: 60_000 });
    expect(result.outcome.case).toBe("imageFile");
    const r = result.outcome.case === "imageFile" ? result.outcome.value : undefined;
    expect(r?.file).toMatchObject({ name: "banner.png", url: `${server.base}/banner.png`, mimeType: "image/png" });
    expect(r?.iabSize).toBe("300x250");
  });

  it("payload_error naming the cause: not an image, over the job's limit, a bomb's header, an HTTP error", async () => {
    expect(await payload(job(await stored(Buffer.from("<!DOCTYPE html><html><body>hi</body></html>"), "x.png")))).toMatch(/^not an image: .*HTML/);
    expect(await payload(job(await stored(await solid(300, 250, "#000000"), "big.png", { maxBytes: 100n })))).toBe("the file is larger than the limit of 100 bytes");
    // A PNG whose header claims 100000x100000: refused before any decode.
    const bomb = await solid(8, 8, "#000000");
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    expect(await payload(job(await stored(bomb, "bomb.png")))).toMatch(/pixels/);
    const missing = create(FileInputSchema, { source: { case: "url", value: `${server.base}/nope.png` } });
    expect(await payload(job(missing))).toBe(`the file could not be fetched: ${new URL(server.base).host} answered HTTP 404 Not Found`);
    // And the worker goes on.
    expect((await scan(await solid(728, 90, "#ffffff"), "leader.png")).iabSize).toBe("728x90");
  });
});
