// The raw-file scans (POST /v3/scanVideo, scanImage, scanAudio) through the real edge, uploads bucket, queue and media
// prober: a file as base64 `data`, as a multipart/form-data upload (streamed into the uploads bucket) and as a `url`
// the prober fetches from a local fixture server; the documented errors; quota charged once and refunded on a
// payload_error; an idempotent retry answered from the stored report. The gRPC door's client stream is tested too, and
// the web console with these three kinds on this same stack (console-cases.ts: consoleFileCases, one Chromium).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createClient, ConnectError, Code } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { createAuthStore, type AuthStore } from "@cva/auth";
import { scan as scanApi } from "@cva/contracts";
import { connectNats, UPLOADS_STREAM } from "@cva/platform";
import { until } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { b64, postJson, startStack, type TestStack } from "../harness/stack.ts";
import { consoleFileCases } from "./console-cases.ts";

const run = promisify(execFile);

// What the uploads bucket still holds, waited on until it is empty (an upload is removed as its request is answered).
// Read as the edge's NATS user, the bucket's owner.
async function uploadsEmpty(stack: TestStack): Promise<number> {
  const nc = await connectNats(stack.natsUrl, "test-uploads", { auth: { user: "edge", password: stack.secrets.nats.edge } });
  const jsm = await jetstreamManager(nc);
  const bytes = async () => (await jsm.streams.info(UPLOADS_STREAM)).state.bytes;
  try {
    return await until("the uploads bucket to be empty", bytes, (b) => b === 0, 10_000, 100).catch(bytes);
  } finally {
    await nc.close();
  }
}

const scan = {
  uploadedBytes: uploadsEmpty,
  service: scanApi.ScanService,
  first: (f: Partial<{ specId: number; workspaceId: bigint; name: string; fileName: string; mimeType: string; url: string }>) =>
    ({ part: { case: "fields" as const, value: f } }),
  chunk: (b: Uint8Array) => ({ part: { case: "chunk" as const, value: b } }),
};
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function postForm(url: string, fields: Record<string, string>, file: { bytes: Buffer; name: string; type: string } | undefined, key?: string, headers: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (file) form.set("file", new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  const r = await fetch(url, { method: "POST", headers: { ...(key ? { "x-apikey": key } : {}), ...headers }, body: form });
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, json, text };
}

describe("raw-file scans end to end", () => {
  let stack: TestStack;
  let store: AuthStore;
  let dir: string;
  let mp4: Buffer;
  let wav: Buffer;
  let png: Buffer;
  let fixture: http.Server;
  let origin: string;
  const SMALL_IMAGE_LIMIT = 300_000;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cva-files-"));
    await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", "-shortest", join(dir, "spot.mp4")]);
    await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=1000:duration=2:sample_rate=48000", "-c:a", "pcm_s16le", join(dir, "spot.wav")]);
    await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=red:size=300x250", "-frames:v", "1", join(dir, "ad.png")]);
    mp4 = readFileSync(join(dir, "spot.mp4"));
    wav = readFileSync(join(dir, "spot.wav"));
    png = readFileSync(join(dir, "ad.png"));
    fixture = http.createServer((req, res) => {
      if (req.url === "/spot.mp4") return void res.writeHead(200, { "content-type": "video/mp4" }).end(mp4);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => fixture.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
    // A small image limit, to see the limit enforced while the upload streams (video and audio keep their defaults).
    stack = await startStack({
      only: ["auth", "report-store", "media-prober", "edge"],
      env: { MAX_IMAGE_BYTES: String(SMALL_IMAGE_LIMIT) },
      waitForWorkers: ["media"],
    });
    store = await createAuthStore(stack.nc);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    fixture?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const used = async (customer: string) => (await store.getCustomer(customer))?.usedThisMonth ?? 0;

  // The web console with these files, on this stack (test/e2e/console-cases.ts).
  let consoleKey = "";
  consoleFileCases(() => ({ stack, key: consoleKey, files: { video: join(dir, "spot.mp4"), audio: join(dir, "spot.wav"), image: join(dir, "ad.png") } }));
  beforeAll(async () => {
    consoleKey = await stack.createKey("files-console", 100);
  });

  function expectVideo(rep: any, name: string, fileName: string) {
    expect(rep.meta.creative_type).toBe("video");
    expect(rep.name).toBe(name);
    expect(rep.file).toMatchObject({ name: fileName, sha256: sha256(mp4), mime_type: "video/mp4", size: mp4.length });
    expect(rep.file_size).toBe(mp4.length);
    expect(rep.duration).toBeGreaterThan(1900);
    expect(rep.duration).toBeLessThan(2200);
    expect(rep.scan_results.report_url).toMatch(/\/r\/[A-Za-z0-9_-]{22}$/);
    // Spec set 0's video tests ran on it (a 2 s 320x240 clip fails duration and the CTV floors, so both counts move).
    expect(rep.scan_results.tests.duration.result).toBe("failed");
    expect(rep.scan_results.passed + rep.scan_results.failed).toBe(Object.keys(rep.scan_results.tests).filter((t) => rep.scan_results.tests[t].result !== "error").length);
  }

  it("scans an mp4 given as data, charges it once, and stores the report", async () => {
    const key = await stack.createKey("files-data", 100);
    const r = await postJson(`${stack.baseUrl}/v3/scanVideo`, { data: b64(mp4), name: "spot (data)", workspace_id: 7 }, key);
    expect(r.status, r.text).toBe(200);
    expectVideo(r.json, "spot (data)", "");
    expect(await used("files-data")).toBe(1);
    const stored = await fetch(`${stack.baseUrl}/v3/reports/${r.json.job_id}`, { headers: { "x-apikey": key } });
    expect(await stored.text()).toBe(r.text);
  });

  it("scans an mp4 uploaded as multipart/form-data; the upload is gone from the bucket afterwards", async () => {
    const key = await stack.createKey("files-multipart", 100);
    const r = await postForm(`${stack.baseUrl}/v3/scanVideo`, { name: "spot (form)", spec_id: "0", workspace_id: "7" }, { bytes: mp4, name: "spot.mp4", type: "video/mp4" }, key);
    expect(r.status, r.text).toBe(200);
    expectVideo(r.json, "spot (form)", "spot.mp4");
    expect(r.json.file.declared_mime_type).toBe("video/mp4");
    expect(await used("files-multipart")).toBe(1);
    expect(await scan.uploadedBytes(stack)).toBe(0);
  });

  it("scans an mp4 by url, fetched by the prober from a fixture server", async () => {
    const key = await stack.createKey("files-url", 100);
    const r = await postJson(`${stack.baseUrl}/v3/scanVideo`, { url: `${origin}/spot.mp4`, name: "spot (url)" }, key);
    expect(r.status, r.text).toBe(200);
    expectVideo(r.json, "spot (url)", "spot.mp4");
    expect(r.json.file.url).toBe(`${origin}/spot.mp4`);
  });

  it("an unreachable url is a payload_error naming the host and the cause, not charged", async () => {
    const key = await stack.createKey("files-dead-url", 100);
    const port = await closedPort();
    const r = await postJson(`${stack.baseUrl}/v3/scanVideo`, { url: `http://127.0.0.1:${port}/spot.mp4` }, key);
    expect(r.status, r.text).toBe(400);
    expect(r.json.error_type).toBe("payload_error");
    expect(r.json.message).toContain("127.0.0.1");
    expect(r.json.message).toMatch(/refused|ECONNREFUSED/i);
    expect(await used("files-dead-url")).toBe(0);
  });

  it("scans a wav uploaded as multipart", async () => {
    const key = await stack.createKey("files-audio", 100);
    const r = await postForm(`${stack.baseUrl}/v3/scanAudio`, { name: "tone" }, { bytes: wav, name: "tone.wav", type: "audio/wav" }, key);
    expect(r.status, r.text).toBe(200);
    expect(r.json.meta.creative_type).toBe("audio");
    expect(r.json.file).toMatchObject({ name: "tone.wav", sha256: sha256(wav), size: wav.length });
    expect(r.json.duration).toBeGreaterThan(1900);
    expect(r.json.duration).toBeLessThan(2100);
  });

  it("scans a PNG given as data", async () => {
    const key = await stack.createKey("files-image", 100);
    const r = await postJson(`${stack.baseUrl}/v3/scanImage`, { data: b64(png), name: "banner" }, key);
    expect(r.status, r.text).toBe(200);
    expect(r.json.meta.creative_type).toBe("image");
    expect(r.json).toMatchObject({ format: "png", width: 300, height: 250, iab_size: "300x250", animated: false });
    expect(r.json.file.sha256).toBe(sha256(png));
    expect(r.json.scan_results.tests.iab_size.result).toBe("passed");
  });

  it("refuses, with the documented payload_errors and no charge: over the limit, not a video, empty, missing file, bad spec_id", async () => {
    const key = await stack.createKey("files-errors", 100);
    const big = Buffer.alloc(SMALL_IMAGE_LIMIT + 1, 1);
    // Over the limit, as a streamed upload and as data.
    let r = await postForm(`${stack.baseUrl}/v3/scanImage`, {}, { bytes: big, name: "big.png", type: "image/png" }, key);
    expect(r.status, r.text).toBe(400);
    expect(r.json).toEqual({ error_type: "payload_error", message: `file: the image is larger than the limit of ${SMALL_IMAGE_LIMIT} bytes` });
    r = await postJson(`${stack.baseUrl}/v3/scanImage`, { data: b64(big) }, key);
    expect(r.json).toEqual({ error_type: "payload_error", message: `data: image is ${SMALL_IMAGE_LIMIT + 1} bytes decoded, over the limit of ${SMALL_IMAGE_LIMIT} bytes` });
    // HTML renamed .mp4: the prober says what it is not.
    r = await postForm(`${stack.baseUrl}/v3/scanVideo`, {}, { bytes: Buffer.from("<!doctype html><html><body>not a video</body></html>"), name: "renamed.mp4", type: "video/mp4" }, key);
    expect(r.status, r.text).toBe(400);
    expect(r.json.error_type).toBe("payload_error");
    expect(r.json.message.length).toBeGreaterThan(10);
    // Empty file, missing file part, neither data nor url, both, bad spec_id.
    r = await postForm(`${stack.baseUrl}/v3/scanVideo`, {}, { bytes: Buffer.alloc(0), name: "empty.mp4", type: "video/mp4" }, key);
    expect(r.json).toEqual({ error_type: "payload_error", message: "file: must not be empty" });
    r = await postForm(`${stack.baseUrl}/v3/scanVideo`, { name: "no file" }, undefined, key);
    expect(r.json).toEqual({ error_type: "payload_error", message: 'file: required (a multipart/form-data part named "file")' });
    r = await postJson(`${stack.baseUrl}/v3/scanVideo`, { name: "nothing" }, key);
    expect(r.json.message).toMatch(/^data: required/);
    r = await postJson(`${stack.baseUrl}/v3/scanVideo`, { data: b64(mp4), url: `${origin}/spot.mp4` }, key);
    expect(r.json.message).toBe("data, url: give the file as one of them, not both");
    r = await postForm(`${stack.baseUrl}/v3/scanVideo`, { spec_id: "424242" }, { bytes: mp4, name: "spot.mp4", type: "video/mp4" }, key);
    expect(r.json).toEqual({ error_type: "payload_error", message: "spec_id: unknown specification set 424242" });
    r = await postForm(`${stack.baseUrl}/v3/scanVideo`, { spec_id: "zero" }, { bytes: mp4, name: "spot.mp4", type: "video/mp4" }, key);
    expect(r.json.message).toBe('spec_id: must be an integer, got "zero"');
    r = await postJson(`${stack.baseUrl}/v3/scanVideo`, { data: b64(mp4), spec_id: 424242 }, key);
    expect(r.json.message).toBe("spec_id: unknown specification set 424242");
    // Only the renamed HTML reached a scan: reserved, then refunded on the worker's payload_error.
    expect(await used("files-errors")).toBe(0);
    // Every refused upload was removed from the bucket.
    expect(await scan.uploadedBytes(stack)).toBe(0);
  });

  it("no key: authentication_error before the body is read", async () => {
    const r = await postForm(`${stack.baseUrl}/v3/scanVideo`, {}, { bytes: mp4, name: "spot.mp4", type: "video/mp4" });
    expect(r.status).toBe(401);
    expect(r.json.error_type).toBe("authentication_error");
  });

  it("an idempotent retry is answered from the stored report and charged once, whichever door the file came through", async () => {
    const key = await stack.createKey("files-idem", 100);
    const first = await postForm(`${stack.baseUrl}/v3/scanVideo`, { name: "idem" }, { bytes: mp4, name: "spot.mp4", type: "video/mp4" }, key, { "idempotency-key": "file-retry-1" });
    expect(first.status, first.text).toBe(200);
    const again = await postForm(`${stack.baseUrl}/v3/scanVideo`, { name: "idem" }, { bytes: mp4, name: "spot.mp4", type: "video/mp4" }, key, { "idempotency-key": "file-retry-1" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    // The same key with other bytes is another request.
    const other = await postForm(`${stack.baseUrl}/v3/scanVideo`, { name: "idem" }, { bytes: wav, name: "spot.mp4", type: "video/mp4" }, key, { "idempotency-key": "file-retry-1" });
    expect(other.json.message).toMatch(/^Idempotency-Key: already used/);
    expect(await used("files-idem")).toBe(1);
  });

  it("gRPC ScanVideo takes the file as a client stream of chunks", async () => {
    const key = await stack.createKey("files-grpc", 100);
    const client = createClient(scan.service, createGrpcTransport({ baseUrl: stack.grpcUrl }));
    async function* chunks(bytes: Buffer, fields: Record<string, unknown>) {
      yield scan.first({ ...fields, fileName: "spot.mp4", mimeType: "video/mp4" });
      for (let at = 0; at < bytes.length; at += 64 * 1024) yield scan.chunk(bytes.subarray(at, at + 64 * 1024));
    }
    const res = await client.scanVideo(chunks(mp4, { name: "grpc spot" }), { headers: { "x-apikey": key } });
    expect(res.report?.name).toBe("grpc spot");
    expect(res.report?.file?.sha256).toBe(sha256(mp4));
    expect(Number(res.report?.durationMs)).toBeGreaterThan(1900);
    expect(await used("files-grpc")).toBe(1);
    // No key: refused before a byte of the stream is read.
    const noKey = await client.scanVideo(chunks(mp4, {})).then(() => undefined, (e: unknown) => ConnectError.from(e));
    expect(noKey?.code).toBe(Code.Unauthenticated);
    // Over the limit: refused as the chunks arrive, with the JSON API's message.
    const big = Buffer.alloc(SMALL_IMAGE_LIMIT + 1, 1);
    async function* bigImage() {
      yield scan.first({ fileName: "big.png" });
      for (let at = 0; at < big.length; at += 64 * 1024) yield scan.chunk(big.subarray(at, at + 64 * 1024));
    }
    const over = await client.scanImage(bigImage(), { headers: { "x-apikey": key } }).then(() => undefined, (e: unknown) => ConnectError.from(e));
    expect(over?.code).toBe(Code.InvalidArgument);
    expect(decodeURIComponent(over?.rawMessage ?? "")).toBe(`file: the image is larger than the limit of ${SMALL_IMAGE_LIMIT} bytes`);
    expect(await used("files-grpc")).toBe(1);
    expect(await scan.uploadedBytes(stack)).toBe(0);
  });
});
