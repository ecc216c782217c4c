// The public gRPC port against a hostile client (issue 20, hole 2): nothing is read before the key is checked, a
// stalled body or an idle connection is let go, the HTTP/2 limits are advertised, and each method reads at most
// what its request can be. Raw node:http2 clients, so that the test controls every frame.
import http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scan } from "@cva/contracts";
import pino from "pino";
import { buildEdge } from "../src/app.ts";
import { startGrpcServer, type GrpcServer } from "../src/grpc/server.ts";
import { FakeAuth, FakeDispatcher, FakeReportStore, testConfig } from "./fakes.ts";

const S = "/cva.scan.v1.ScanService/";
const BOUND_MS = 10_000;

/** Resolves with `what`, or rejects after `ms` saying what never happened (a bound, not a timing assertion). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
    }),
  ]);
}

/** A gRPC length prefix announcing a message of `length` bytes (what a client sends before the message). */
function grpcPrefix(length: number): Buffer {
  const b = Buffer.alloc(5);
  b.writeUInt32BE(length, 1);
  return b;
}

describe("public gRPC port, hostile clients", () => {
  let server: GrpcServer;
  let strict: GrpcServer;
  const authFake = new FakeAuth();
  const sessions: http2.ClientHttp2Session[] = [];

  beforeAll(async () => {
    const { app, ctx } = await buildEdge({
      auth: authFake.client(), reports: new FakeReportStore().client(), dispatcher: new FakeDispatcher(), config: testConfig(),
      logger: pino({ level: "silent" }), isKnownSpecId: (id) => id === 0,
    });
    await app.ready();
    const deps = { host: "127.0.0.1", useCases: ctx.useCases, limits: ctx.deps.config.limits, isKnownSpecId: ctx.isKnownSpecId, logger: ctx.deps.logger };
    server = await startGrpcServer({ ...deps, port: 0 });
    // The same server with short time-outs, so that the test does not wait for the production ones.
    strict = await startGrpcServer({ ...deps, port: 0, http2: { idleSessionMs: 300, bodyTimeoutMs: 500 } });
  });
  afterAll(async () => {
    for (const s of sessions) s.destroy();
    await server?.close();
    await strict?.close();
  });

  function connect(port: number): http2.ClientHttp2Session {
    const s = http2.connect(`http://127.0.0.1:${port}`);
    s.on("error", () => {});
    sessions.push(s);
    return s;
  }

  /**
   * Opens a call, sends the length prefix of a message and 64 KB of it, and never sends the rest: 14 MB, the proof's
   * size, by default; a size the method accepts to stall an authenticated call.
   */
  function unfinishedUpload(session: http2.ClientHttp2Session, headers: Record<string, string>, messageBytes = 14 * 1024 * 1024) {
    const stream = session.request({ ":method": "POST", ":path": `${S}ScanZipV3`, te: "trailers", ...headers }, { endStream: false });
    stream.on("error", () => {});
    stream.write(grpcPrefix(messageBytes));
    stream.write(Buffer.alloc(64 * 1024));
    const response = new Promise<http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader>((resolve) => stream.once("response", resolve));
    const body: Buffer[] = [];
    stream.on("data", (d: Buffer) => body.push(d));
    const closed = new Promise<number>((resolve) => stream.once("close", () => resolve(stream.rstCode ?? 0)));
    return { stream, response, closed, body: () => Buffer.concat(body).toString() };
  }

  it("without a key, a call is answered UNAUTHENTICATED before its body is sent, and no auth call is made", async () => {
    const calls = authFake.calls.length;
    const up = unfinishedUpload(connect(server.port), { "content-type": "application/grpc" });
    const headers = await within(up.response, BOUND_MS, "an answer before the body was complete");
    expect(headers[":status"]).toBe(200);
    expect(headers["grpc-status"]).toBe("16");
    expect(decodeURIComponent(String(headers["grpc-message"]))).toBe("X-ApiKey header missing");
    // The stream ends there: the server does not go on reading the 14 MB.
    await within(up.closed, BOUND_MS, "the stream's end");
    expect(authFake.calls.length).toBe(calls);
  });

  it("with an unknown key, the same answer comes after one auth call, before the body", async () => {
    const calls = authFake.calls.filter((c) => c === "authenticate").length;
    const up = unfinishedUpload(connect(server.port), { "content-type": "application/grpc", "x-apikey": "stolen?" });
    const headers = await within(up.response, BOUND_MS, "an answer before the body was complete");
    expect(headers["grpc-status"]).toBe("16");
    expect(decodeURIComponent(String(headers["grpc-message"]))).toBe("X-ApiKey: unknown or revoked API key");
    expect(authFake.calls.filter((c) => c === "authenticate").length).toBe(calls + 1);
  });

  it("Connect and gRPC-web callers get their own protocol's answer", async () => {
    const connectCall = unfinishedUpload(connect(server.port), { "content-type": "application/proto" });
    const h = await within(connectCall.response, BOUND_MS, "a Connect answer before the body was complete");
    expect(h[":status"]).toBe(401);
    await within(connectCall.closed, BOUND_MS, "the stream's end");
    expect(JSON.parse(connectCall.body())).toEqual({ code: "unauthenticated", message: "X-ApiKey header missing" });
    const web = unfinishedUpload(connect(server.port), { "content-type": "application/grpc-web+proto" });
    const w = await within(web.response, BOUND_MS, "a gRPC-web answer before the body was complete");
    expect(w["grpc-status"]).toBe("16");
    expect(String(w["content-type"])).toMatch(/^application\/grpc-web/);
  });

  it("advertises a bounded number of streams per connection and a bounded header list", async () => {
    const s = connect(server.port);
    const settings = await within(new Promise<http2.Settings>((resolve) => s.once("remoteSettings", resolve)), BOUND_MS, "the server's SETTINGS");
    expect(settings.maxConcurrentStreams).toBeLessThanOrEqual(100);
    expect(settings.maxHeaderListSize).toBeLessThanOrEqual(64 * 1024);
  });

  it("a connection with no call open is closed after the idle time-out", async () => {
    const s = connect(strict.port);
    await within(new Promise<void>((resolve) => s.once("close", () => resolve())), BOUND_MS, "closing an idle connection");
  });

  it("an authenticated call whose body stalls is cut at the body time-out", async () => {
    const up = unfinishedUpload(connect(strict.port), { "content-type": "application/grpc", "x-apikey": "key-a" }, 1024 * 1024);
    const code = await within(up.closed, BOUND_MS, "cutting the stalled upload");
    expect(code).toBe(http2.constants.NGHTTP2_CANCEL);
  });

  it("GetReport reads a few hundred bytes, not megabytes; the health check needs no key", async () => {
    const client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    try {
      const md = new grpc.Metadata();
      md.set("x-apikey", "key-a");
      const big = create(scan.GetReportRequestSchema, { jobId: "x".repeat(64 * 1024) });
      const err = await new Promise<grpc.ServiceError>((resolve) => {
        client.makeUnaryRequest(`${S}GetReport`, (m: typeof big) => Buffer.from(toBinary(scan.GetReportRequestSchema, m)), (b: Buffer) => b, big, md,
          (e) => resolve(e!));
      });
      expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      const health = await new Promise<grpc.ServiceError | null>((resolve) => {
        client.makeUnaryRequest("/grpc.health.v1.Health/Check", () => Buffer.alloc(0), (b: Buffer) => b, {}, new grpc.Metadata(), (e) => resolve(e));
      });
      expect(health).toBeNull();
    } finally {
      client.close();
    }
  });

  it("ScanTagV2 refuses a page_url on a private host, as the JSON API does", async () => {
    const client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    try {
      const md = new grpc.Metadata();
      md.set("x-apikey", "key-a");
      const req = create(scan.ScanTagV2RequestSchema, { data: new TextEncoder().encode("<b>x</b>"), targeting: { pageUrl: "http://127.0.0.1:9203/" } });
      const err = await new Promise<grpc.ServiceError>((resolve) => {
        client.makeUnaryRequest(`${S}ScanTagV2`, (m: typeof req) => Buffer.from(toBinary(scan.ScanTagV2RequestSchema, m)), (b: Buffer) => b, req, md,
          (e) => resolve(e!));
      });
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(decodeURIComponent(err.details)).toBe("targeting.page_url: host 127.0.0.1 is not a public address");
    } finally {
      client.close();
    }
  });

  it("no refused or cut call is left open: the server closes at once", async () => {
    for (const s of sessions) s.destroy();
    await within(server.close(), BOUND_MS, "closing the server");
    await within(strict.close(), BOUND_MS, "closing the strict server");
  });
});
