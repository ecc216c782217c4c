import type http2 from "node:http2";
import { ConnectError, createContextKey } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { ApiError, asApiError, toConnectError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import type { Authenticate } from "../scan/authenticate.ts";
import type { Principal } from "../scan/types.ts";

/**
 * The API key is checked on the raw HTTP/2 request, from its headers, before anything reads the body: an
 * unauthenticated caller is answered at once and its stream reset, so it can make the edge hold neither a 15 MB
 * message nor the stream while it trickles one in. Until the answer, the stream's body stays unread: HTTP/2 flow
 * control stops the client after its first window (64 KB).
 */

/** The caller the gate admitted, handed to the RPC handlers (one auth call per request, not two). */
export const callerKey = createContextKey<Principal | undefined>(undefined, { description: "authenticated caller" });

/** Paths answered without a key: the health check, which probes call without credentials. */
export const OPEN_PATH_PREFIXES = ["/grpc.health.v1.Health/"];

export type KeyGate = (req: http2.Http2ServerRequest) => Promise<Principal | undefined>;

export function createKeyGate(auth: { authenticate: Authenticate }, logger: EdgeDeps["logger"]): KeyGate {
  return async (req) => {
    const key = req.headers["x-apikey"];
    try {
      return await auth.authenticate(Array.isArray(key) ? key[0] : key);
    } catch (err) {
      // As the handlers do (service.ts): what is not a documented error is logged, and answered generically.
      if (!(err instanceof ApiError)) logger.error({ err, procedure: req.url.slice(req.url.lastIndexOf("/") + 1) }, "unhandled error");
      const apiErr = asApiError(err);
      refuse(req, toConnectError(apiErr, err), apiErr.retryAfterSeconds);
      return undefined;
    }
  };
}

/**
 * Answers an error in the caller's protocol (gRPC trailers-only, gRPC-web status in the headers, Connect's JSON
 * error), then resets the stream with NO_ERROR — RFC 9113 §8.1: a server that answered before the request ended asks
 * the client to stop sending that way.
 */
export function refuse(req: http2.Http2ServerRequest, err: ConnectError, retryAfterSeconds?: number): void {
  const contentType = String(req.headers["content-type"] ?? "");
  const headers: Record<string, string> = retryAfterSeconds !== undefined ? { "retry-after": String(retryAfterSeconds) } : {};
  let status = 200;
  let body: Uint8Array | undefined;
  const web = /^application\/grpc-web(-text)?(\+\w+)?(;|$)/i.exec(contentType);
  if (web || /^application\/grpc(\+\w+)?(;|$)/i.test(contentType)) {
    headers["content-type"] = web ? `application/grpc-web${web[1] ?? ""}${web[2] ?? "+proto"}` : "application/grpc";
    setTrailerStatus(new Headers(), err).forEach((v, k) => (headers[k] = v));
  } else {
    status = codeToHttpStatus(err.code);
    headers["content-type"] = "application/json";
    body = errorToJsonBytes(err, undefined);
  }
  // The raw stream, not the compatibility response: a trailers-only answer must be one HEADERS frame with
  // END_STREAM, and the reset must follow the answer, not race it.
  const stream = req.stream;
  if (stream.closed || stream.destroyed) return;
  // What arrived of the body is dropped unread (the stream ends once its buffered input is consumed).
  const stopUpload = () => {
    stream.close(NGHTTP2_NO_ERROR);
    req.resume();
  };
  stream.respond({ ":status": status, ...headers }, { endStream: body === undefined });
  if (body === undefined) stopUpload();
  else stream.end(body, stopUpload);
}

const NGHTTP2_NO_ERROR = 0;
