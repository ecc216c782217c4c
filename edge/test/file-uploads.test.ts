// The raw-file scans' multipart door against in-memory fakes, on a real socket: the file part reaches the uploads
// store as a stream (fields before or after it), the stored object is removed once the request is answered, a body
// that declares more than the limit is refused before a byte is read, a client that leaves mid-upload leaves nothing
// stored, and a customer at its in-flight cap has its upload digested, never stored. End to end with the real bucket
// and prober: test/e2e/file-scans.test.ts; memory: test/e2e/upload-memory.test.ts.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { CreativeFileSchema, scan, ScanJobResultSchema, ScanKind, VideoFileReportSchema, type ScanJob, type ScanJobResult } from "@cva/contracts";
import { UploadError, type StoredUpload } from "@cva/platform";
import { until } from "@cva/platform/testing/index.ts";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { buildEdge } from "../src/app.ts";
import { registerScanService } from "../src/grpc/service.ts";
import { FakeAuth, FakeDispatcher, FakeReportStore, testConfig } from "./fakes.ts";

/** An uploads store that streams like the real one (consumes, digests, enforces the limit) and keeps no bytes. */
class FakeUploads {
  objects = new Map<string, StoredUpload>();
  purged = 0;
  deleted: string[] = [];
  inFlight = 0;
  private n = 0;
  async put(source: AsyncIterable<Uint8Array>, opts: { maxBytes?: number } = {}): Promise<StoredUpload> {
    const sha = createHash("sha256");
    let size = 0;
    this.inFlight++;
    try {
      for await (const part of source) {
        size += part.length;
        if (size > (opts.maxBytes ?? Infinity)) throw new UploadError("too_large", `the file is larger than the limit of ${opts.maxBytes} bytes`);
        sha.update(part);
      }
    } catch (err) {
      this.purged++;
      throw err;
    } finally {
      this.inFlight--;
    }
    const ref = { object: `obj${String(++this.n).padStart(19, "0")}`, size, sha256: sha.digest("hex") };
    this.objects.set(ref.object, ref);
    return ref;
  }
  async delete(object: string): Promise<void> {
    this.deleted.push(object);
    this.objects.delete(object);
  }
}

class VideoDispatcher extends FakeDispatcher {
  override async submit(job: ScanJob): Promise<ScanJobResult> {
    if (job.kind !== ScanKind.VIDEO_FILE) return super.submit(job);
    this.jobs.push(job);
    const input = job.input.case === "videoFile" ? job.input.value : undefined;
    const stored = input?.source.case === "stored" ? input.source.value : undefined;
    const report = create(VideoFileReportSchema, {
      file: create(CreativeFileSchema, { name: input?.name, sha256: stored?.sha256, size: stored?.size, mimeType: "video/mp4" }),
      fileSize: stored?.size ?? 0n,
      durationMs: 2000n,
    });
    return create(ScanJobResultSchema, { jobId: job.jobId, workerId: "w1", outcome: { case: "videoFile", value: report } });
  }
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function setup(over: { maxInFlightPerCustomer?: number; maxVideoBytes?: number } = {}) {
  const uploads = new FakeUploads();
  const dispatcher = new VideoDispatcher();
  dispatcher.workers[ScanKind.VIDEO_FILE] = 2;
  const config = testConfig({ maxInFlightPerCustomer: over.maxInFlightPerCustomer });
  config.limits = { ...config.limits, maxVideoBytes: over.maxVideoBytes ?? config.limits.maxVideoBytes };
  const { app, ctx } = await buildEdge({
    auth: new FakeAuth().client(), reports: new FakeReportStore().client(), dispatcher, uploads,
    config, logger: pino({ level: "silent" }), isKnownSpecId: (id) => id === 0,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  close = () => app.close();
  return { uploads, dispatcher, ctx, port: (app.server.address() as AddressInfo).port };
}

const BOUNDARY = "xTestBoundary";
const fieldPart = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const fileHead = (fileName: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: video/mp4\r\n\r\n`;
const END = `\r\n--${BOUNDARY}--\r\n`;

/** Sends `pieces` as one multipart request; resolves with the answer. */
function send(port: number, pieces: Array<string | Buffer>, headers: Record<string, string> = {}): { req: http.ClientRequest; answer: Promise<{ status: number; json: any }> } {
  const req = http.request({ port, host: "127.0.0.1", method: "POST", path: "/v3/scanVideo", headers: { "x-apikey": "key-a", "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...headers } });
  const answer = new Promise<{ status: number; json: any }>((resolve, reject) => {
    req.on("response", (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(body) }));
    });
    req.on("error", reject);
  });
  for (const p of pieces) req.write(p);
  return { req, answer };
}

describe("multipart uploads of raw files", () => {
  it("streams the file part to the uploads store (fields after it too) and removes the object once answered", async () => {
    const { uploads, dispatcher, port } = await setup();
    const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
    const { req, answer } = send(port, [fileHead("spot.mp4"), bytes, "\r\n", fieldPart("name", "late fields"), fieldPart("spec_id", "0")]);
    req.end(`--${BOUNDARY}--\r\n`);
    const r = await answer;
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.name).toBe("late fields");
    const input = dispatcher.jobs[0]!.input;
    expect(input.case).toBe("videoFile");
    const fileInput = input.value as { source: { case: string; value: { size: bigint; sha256: string } }; name: string; mime: string; maxBytes: bigint };
    expect(fileInput.source.case).toBe("stored");
    expect(fileInput.source.value.size).toBe(BigInt(bytes.length));
    expect(fileInput.source.value.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(fileInput).toMatchObject({ name: "spot.mp4", mime: "video/mp4", maxBytes: BigInt(500 * 1024 * 1024) });
    await until("the upload removed", async () => uploads.objects.size, (n) => n === 0, 5_000);
  });

  it("refuses a body that declares more than the limit before reading it, and one that streams past it", async () => {
    const { uploads, port } = await setup({ maxVideoBytes: 1_000_000 });
    const declared = send(port, [fileHead("big.mp4")], { "content-length": String(50_000_000) });
    const r = await declared.answer;
    declared.req.destroy();
    expect(r.json).toEqual({ error_type: "payload_error", message: "file: the video is larger than the limit of 1000000 bytes" });
    expect(uploads.purged).toBe(0);
    const streamed = send(port, [fileHead("big.mp4"), Buffer.alloc(1_000_001)]);
    streamed.req.end(END);
    expect((await streamed.answer).json).toEqual({ error_type: "payload_error", message: "file: the video is larger than the limit of 1000000 bytes" });
    expect(uploads.purged).toBe(1);
    expect(uploads.objects.size).toBe(0);
  });

  it("a client that leaves mid-upload leaves nothing stored", async () => {
    const { uploads, ctx, port } = await setup();
    const { req, answer } = send(port, [fieldPart("name", "gone"), fileHead("spot.mp4"), Buffer.alloc(512 * 1024)]);
    answer.catch(() => undefined);
    await until("the upload under way", async () => uploads.inFlight, (n) => n === 1, 5_000);
    req.destroy();
    await until("the upload given up", async () => [uploads.inFlight, uploads.purged], ([f, p]) => f === 0 && p === 1, 5_000);
    expect(uploads.objects.size).toBe(0);
    await until("the admission released", async () => ctx.useCases.admission.inProgress("cust-a"), (c) => Object.keys(c).length === 0, 5_000);
  });

  it("a customer at its in-flight cap has its upload digested, never stored, and is refused uncharged", async () => {
    const { uploads, ctx, port } = await setup({ maxInFlightPerCustomer: 1 });
    const ticket = ctx.useCases.admission.enter("cust-a", "video_v3");
    const { req, answer } = send(port, [fileHead("spot.mp4"), Buffer.alloc(2 * 1024 * 1024, 1)]);
    req.end(END);
    const r = await answer;
    expect(r.json.error_type).toBe("processing_error");
    expect(r.json.message).toBe("too many video file scans in flight for this customer: at most 1 at once; retry when one has finished");
    expect(uploads.objects.size + uploads.purged + uploads.inFlight).toBe(0);
    if ("release" in ticket) ticket.release();
  });

  it("a multipart Content-Type without a boundary, or a form without a file part, is a payload_error", async () => {
    const { port } = await setup();
    const a = send(port, ["x"], { "content-type": "multipart/form-data" });
    a.req.end();
    expect((await a.answer).json).toEqual({ error_type: "payload_error", message: "body: not a valid multipart/form-data body (its Content-Type needs a boundary)" });
    const b = send(port, [fieldPart("name", "no file")]);
    b.req.end(`--${BOUNDARY}--\r\n`);
    expect((await b.answer).json).toEqual({ error_type: "payload_error", message: 'file: required (a multipart/form-data part named "file")' });
  });
});

describe("gRPC raw-file streams", () => {
  async function grpc(over: { maxInFlightPerCustomer?: number } = {}) {
    const s = await setup(over);
    const client = createClient(scan.ScanService, createRouterTransport((r) =>
      registerScanService(r, { useCases: s.ctx.useCases, limits: s.ctx.deps.config.limits, isKnownSpecId: s.ctx.isKnownSpecId, logger: s.ctx.deps.logger, uploads: s.uploads })));
    return { ...s, client };
  }
  const headers = { "x-apikey": "key-a" };
  const fields = (f: Record<string, unknown>) => ({ part: { case: "fields" as const, value: f } });
  const chunk = (b: Uint8Array) => ({ part: { case: "chunk" as const, value: b } });
  async function* stream(...msgs: Array<ReturnType<typeof fields> | ReturnType<typeof chunk>>) {
    yield* msgs;
  }
  const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => ConnectError.from(e));

  it("streams the chunks to the store, the job names the object, and it is removed after the scan", async () => {
    const { client, uploads, dispatcher } = await grpc();
    const res = await client.scanVideo(stream(fields({ name: "g", fileName: "g.mp4", mimeType: "video/mp4" }), chunk(Buffer.alloc(300_000, 1)), chunk(Buffer.alloc(5, 2))), { headers });
    expect(res.report?.name).toBe("g");
    expect(Number(res.report?.file?.size)).toBe(300_005);
    const input = dispatcher.jobs[0]!.input.value as { source: { case: string }; name: string };
    expect(input).toMatchObject({ name: "g.mp4", source: { case: "stored" } });
    expect(uploads.objects.size).toBe(0);
    expect(uploads.deleted).toHaveLength(1);
  });

  it("a url goes to the worker as is; chunks after a url, a stream without fields first, or bad fields are payload errors read no chunk", async () => {
    const { client, uploads, dispatcher } = await grpc();
    await client.scanVideo(stream(fields({ url: "https://cdn.example/spot.mp4" })), { headers });
    expect(dispatcher.jobs[0]!.input.value).toMatchObject({ source: { case: "url", value: "https://cdn.example/spot.mp4" } });
    const after = await failure(client.scanVideo(stream(fields({ url: "https://cdn.example/spot.mp4" }), chunk(Buffer.alloc(4))), { headers }));
    expect([after?.code, after?.rawMessage]).toEqual([Code.InvalidArgument, "chunk: no file bytes may follow a url"]);
    const noFields = await failure(client.scanVideo(stream(chunk(Buffer.alloc(4))), { headers }));
    expect(noFields?.rawMessage).toBe("fields: the first message of the stream must carry the fields");
    const badSpec = await failure(client.scanVideo(stream(fields({ specId: 99 }), chunk(Buffer.alloc(4))), { headers }));
    expect(badSpec?.rawMessage).toBe("spec_id: unknown specification set 99");
    const empty = await failure(client.scanVideo(stream(fields({})), { headers }));
    expect(empty?.rawMessage).toBe("file: must not be empty");
    expect(uploads.objects.size).toBe(0);
  });

  it("at the in-flight cap the chunks are only digested, and the answer is the in-flight refusal", async () => {
    const { client, uploads, ctx } = await grpc({ maxInFlightPerCustomer: 1 });
    const ticket = ctx.useCases.admission.enter("cust-a", "video_v3");
    const err = await failure(client.scanVideo(stream(fields({}), chunk(Buffer.alloc(100_000, 3))), { headers }));
    expect(err?.code).toBe(Code.Unavailable);
    expect(err?.rawMessage).toMatch(/^too many video file scans in flight/);
    expect(uploads.objects.size + uploads.purged).toBe(0);
    if ("release" in ticket) ticket.release();
  });
});
