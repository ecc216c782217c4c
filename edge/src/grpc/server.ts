import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { createContextValues } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Principal } from "../scan/types.ts";
import { callerKey, createKeyGate, OPEN_PATH_PREFIXES } from "./key-gate.ts";
import { largestReadLimit, registerScanService, type GrpcDeps } from "./service.ts";

/**
 * What one connection to the public gRPC port may hold, and for how long. The port is on the Internet: without these a
 * client could keep any number of connections and streams open for free, and trickle bodies in forever.
 */
export interface Http2Limits {
  /** A connection with no call open for this long is closed (GOAWAY): idle clients, and headers never completed. */
  idleSessionMs: number;
  /** A call's request body must have arrived this long after its headers, or the stream is reset (CANCEL). */
  bodyTimeoutMs: number;
  /** The same for the raw-file client streams (ScanVideo/Image/Audio), whose files reach hundreds of MB. */
  fileBodyTimeoutMs: number;
  /** Concurrent calls per connection (SETTINGS_MAX_CONCURRENT_STREAMS); further streams are refused. */
  maxConcurrentStreams: number;
  /** Header block per call, bytes (SETTINGS_MAX_HEADER_LIST_SIZE), and header fields per call. */
  maxHeaderListSize: number;
  maxHeaderListPairs: number;
  /** nghttp2's memory per connection, MB (buffered frames, header tables); past it new streams are refused. */
  maxSessionMemoryMb: number;
}

/**
 * 60 s for a body: a 13 MB zip message at ~220 KB/s, far slower than any client uploading to an ad platform; 30 s of
 * idleness before a connection is let go (gRPC clients reconnect on GOAWAY by themselves); 32 calls per connection,
 * eight times the smallest in-flight cap a customer gets; 16 KB of headers, where a call needs well under 1 KB.
 */
export const DEFAULT_HTTP2_LIMITS: Http2Limits = {
  idleSessionMs: 30_000,
  bodyTimeoutMs: 60_000,
  // 500 MB in 10 min: ~830 KB/s, the pace of a slow office uplink.
  fileBodyTimeoutMs: 600_000,
  maxConcurrentStreams: 32,
  maxHeaderListSize: 16 * 1024,
  maxHeaderListPairs: 64,
  maxSessionMemoryMb: 16,
};

/** The raw-file client-stream methods: a longer body time-out. */
const FILE_METHODS = /^\/cva\.scan\.v1\.ScanService\/Scan(Video|Image|Audio)$/;

export interface GrpcServer {
  port: number;
  close(): Promise<void>;
}

/**
 * HTTP/2 cleartext listener serving gRPC, gRPC-web and Connect (Fastify keeps HTTP/1.1 on its own port). Every call
 * but the health check passes the key gate before Connect reads a byte of its body.
 */
export async function startGrpcServer(
  deps: GrpcDeps & { port: number; host?: string; http2?: Partial<Http2Limits> },
): Promise<GrpcServer> {
  const limits: Http2Limits = { ...DEFAULT_HTTP2_LIMITS, ...deps.http2 };
  const admitted = new WeakMap<http2.Http2ServerRequest, Principal>();
  const adapter = connectNodeAdapter({
    routes: (router) => registerScanService(router, deps),
    // Each method has its own, smaller limit (service.ts); this is only the ceiling.
    readMaxBytes: largestReadLimit(deps.limits),
    contextValues: (req) => createContextValues().set(callerKey, admitted.get(req as http2.Http2ServerRequest)),
  });
  const gate = createKeyGate(deps.useCases, deps.logger);

  const server = http2.createServer(
    {
      settings: { maxConcurrentStreams: limits.maxConcurrentStreams, maxHeaderListSize: limits.maxHeaderListSize },
      maxHeaderListPairs: limits.maxHeaderListPairs,
      maxSessionMemory: limits.maxSessionMemoryMb,
    },
    (req, res) => {
      if (OPEN_PATH_PREFIXES.some((p) => req.url.startsWith(p))) return void adapter(req, res);
      const stream = req.stream;
      const bodyTimer = setTimeout(() => {
        if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      }, FILE_METHODS.test(req.url) ? limits.fileBodyTimeoutMs : limits.bodyTimeoutMs);
      const done = () => clearTimeout(bodyTimer);
      req.once("end", done);
      stream.once("close", done);
      // Answered before the request ended (an error after reading part of a too-large message, say): the stream is
      // reset, so that it ends now instead of when the client chooses. CANCEL, not NO_ERROR: Node keeps a stream
      // reset with NO_ERROR until its buffered input is read, and Connect has stopped reading it. After the trailers:
      // the compatibility response always sends them ('wantTrailers'), and a reset before them would lose the status;
      // listeners run in order, so setImmediate puts the reset after sendTrailers.
      stream.once("wantTrailers", () => setImmediate(() => {
        if (!stream.readableEnded && !stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
      }));
      void gate(req).then((principal) => {
        if (!principal || stream.closed) return;
        admitted.set(req, principal);
        adapter(req, res);
      });
    },
  );

  // A connection with no open call is closed after idleSessionMs, however many frames (pings, SETTINGS, a header
  // block that never completes) it sends meanwhile; the timer stops while a call is open.
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    let open = 0;
    let idle: NodeJS.Timeout | undefined;
    const arm = () => {
      idle = setTimeout(() => {
        session.close();
        // A peer that ignores GOAWAY and keeps its socket: gone a second later.
        setTimeout(() => session.destroy(), 1_000).unref();
      }, limits.idleSessionMs);
      idle.unref();
    };
    arm();
    session.on("stream", (stream) => {
      open++;

      clearTimeout(idle);
      stream.once("close", () => {
        if (--open === 0 && !session.closed && !session.destroyed) arm();
      });
    });
    session.once("close", () => {
      clearTimeout(idle);
      sessions.delete(session);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(deps.port, deps.host ?? "0.0.0.0", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sessions) s.close();
      }),
  };
}
