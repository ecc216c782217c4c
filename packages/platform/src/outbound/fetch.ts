import { createWriteStream } from "node:fs";
import { unlink } from "node:fs/promises";
import type { IncomingHttpHeaders } from "node:http";
import { STATUS_CODES } from "node:http";
import { type Readable, pipeline as pipelineCb } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { Agent, request } from "undici";
import { safeUndiciConnector } from "./connect.ts";
import { OutboundError } from "./errors.ts";
import type { OutboundPolicy } from "./policy.ts";

export interface SafeFetchOptions {
  policy: OutboundPolicy;
  method?: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Limit on the (decoded) body; default 5 MB for safeFetch, 200 MB for safeDownload. */
  maxBytes?: number;
  /** DNS + TCP + TLS of each hop; default 5000. */
  connectTimeoutMs?: number;
  /** Whole call including redirects and body; default 15 s for safeFetch, 60 s for safeDownload. */
  timeoutMs?: number;
  /** Redirects followed at most; default 5. */
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface SafeResponse {
  /** Final URL (credentials removed). */
  url: string;
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ", except set-cookie joined with "\n". */
  headers: Record<string, string>;
  body: Buffer;
  /** Address the final response came from. */
  serverIp: string;
  /** URLs that answered with a redirect, in order (credentials removed); `[...redirects, url]` is the chain. */
  redirects: string[];
  timeMs: number;
  /** From the call to the final response's headers. */
  ttfbMs: number;
}

export type SafeDownloadResult = Omit<SafeResponse, "body"> & { bytes: number };

const MB = 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-location"];
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

function parseTarget(raw: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new OutboundError("bad_url", `${what} is not a valid absolute URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new OutboundError("bad_scheme", `${what} uses ${u.protocol.slice(0, 20)}; only http and https are allowed`);
  }
  return u;
}

/** The URL without userinfo: credentials are sent, never logged or reported. */
function publicHref(u: URL): string {
  if (!u.username && !u.password) return u.href;
  const c = new URL(u.href);
  c.username = "";
  c.password = "";
  return c.href;
}

function decodeUserinfo(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function flattenHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    const name = k.toLowerCase();
    out[name] = Array.isArray(v) ? v.join(name === "set-cookie" ? "\n" : ", ") : v;
  }
  return out;
}

function decoded(body: Readable, encoding: string | undefined): Readable {
  const enc = encoding?.trim().toLowerCase();
  const z =
    enc === "gzip" || enc === "x-gzip" ? createGunzip() : enc === "deflate" ? createInflate() : enc === "br" ? createBrotliDecompress() : undefined;
  if (!z) return body;
  return pipelineCb(body, z, () => {});
}

/** undici's body emits an AbortError when destroyed unread; nobody is listening any more. */
function discard(body: Readable): void {
  body.on("error", () => {});
  body.destroy();
}

function tooLarge(host: string, max: number): OutboundError {
  return new OutboundError("too_large", `response from ${host} exceeds the limit of ${max} bytes`);
}

async function* limited(src: AsyncIterable<Buffer>, host: string, max: number): AsyncGenerator<Buffer> {
  let n = 0;
  for await (const chunk of src) {
    n += chunk.length;
    if (n > max) throw tooLarge(host, max);
    yield chunk;
  }
}

interface Defaults {
  maxBytes: number;
  timeoutMs: number;
}

/** Shared request loop: manual redirects (each hop re-checked at connect time), limits, error mapping. */
async function run<T>(
  rawUrl: string,
  opts: SafeFetchOptions,
  defaults: Defaults,
  consume: (body: Readable, host: string, maxBytes: number) => Promise<T>,
): Promise<{ meta: Omit<SafeResponse, "body">; result: T }> {
  const started = performance.now();
  const maxBytes = opts.maxBytes ?? defaults.maxBytes;
  const timeoutMs = opts.timeoutMs ?? defaults.timeoutMs;
  const maxRedirects = opts.maxRedirects ?? 5;
  let url = parseTarget(rawUrl, "the URL");

  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(new OutboundError("timeout", `request to ${url.host} timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const onUserAbort = (): void => ctl.abort(opts.signal?.reason);
  if (opts.signal?.aborted) onUserAbort();
  opts.signal?.addEventListener("abort", onUserAbort, { once: true });

  const serverIps = new Map<string, string>();
  const agent = new Agent({
    connect: safeUndiciConnector(
      { policy: opts.policy, connectTimeoutMs: opts.connectTimeoutMs ?? 5000, signal: ctl.signal },
      (origin, ip) => serverIps.set(origin, ip),
    ),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  let method = (opts.method ?? "GET").toUpperCase();
  let body = opts.body;
  let headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
  const redirects: string[] = [];

  try {
    for (;;) {
      const hopHeaders = { ...headers };
      if ((url.username || url.password) && !hopHeaders.authorization) {
        const user = decodeUserinfo(url.username);
        const pass = decodeUserinfo(url.password);
        hopHeaders.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
      }
      const res = await request(publicHref(url), {
        dispatcher: agent,
        method: method as "GET",
        headers: hopHeaders,
        body: body === undefined ? undefined : typeof body === "string" ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        signal: ctl.signal,
      });
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === "string" && location !== "") {
        discard(res.body);
        if (redirects.length >= maxRedirects) {
          throw new OutboundError("too_many_redirects", `more than ${maxRedirects} redirects starting from ${redirects[0] ? new URL(redirects[0]).host : url.host}`);
        }
        redirects.push(publicHref(url));
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new OutboundError("bad_url", `${url.host} redirected to an invalid URL`);
        }
        next = parseTarget(next.href, `the redirect from ${url.host}`);
        if ((res.statusCode === 303 && method !== "HEAD") || ((res.statusCode === 301 || res.statusCode === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          for (const h of BODY_HEADERS) delete headers[h];
        }
        if (next.origin !== url.origin) {
          headers = { ...headers };
          for (const h of CREDENTIAL_HEADERS) delete headers[h];
        }
        url = next;
        continue;
      }

      const ttfbMs = performance.now() - started;
      const responseHeaders = flattenHeaders(res.headers);
      const declared = Number(responseHeaders["content-length"]);
      if (method !== "HEAD" && Number.isFinite(declared) && declared > maxBytes) {
        discard(res.body);
        throw tooLarge(url.host, maxBytes);
      }
      const result = await consume(decoded(res.body, responseHeaders["content-encoding"]), url.host, maxBytes);
      return {
        result,
        meta: {
          url: publicHref(url),
          status: res.statusCode,
          statusText: res.statusText || STATUS_CODES[res.statusCode] || "",
          headers: responseHeaders,
          serverIp: serverIps.get(url.origin) ?? "",
          redirects,
          timeMs: performance.now() - started,
          ttfbMs,
        },
      };
    }
  } catch (e) {
    throw mapError(e, { timedOut, timeoutError: ctl.signal.reason, userSignal: opts.signal, host: url.host });
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onUserAbort);
    agent.destroy().catch(() => {});
  }
}

function mapError(
  e: unknown,
  ctx: { timedOut: boolean; timeoutError: unknown; userSignal: AbortSignal | undefined; host: string },
): unknown {
  if (ctx.timedOut) return ctx.timeoutError;
  if (ctx.userSignal?.aborted) return ctx.userSignal.reason ?? e;
  if (e instanceof OutboundError) return e;
  const code = (e as { code?: string }).code ?? "";
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    return new OutboundError("timeout", `request to ${ctx.host} timed out`);
  }
  if (code === "UND_ERR_INVALID_ARG" || code === "ERR_INVALID_ARG_TYPE" || code === "ERR_INVALID_ARG_VALUE") return e;
  if (code.startsWith("Z_") || code.startsWith("ERR__")) {
    return new OutboundError("connection", `response from ${ctx.host} could not be decoded`);
  }
  const detail = code.startsWith("UND_ERR_") ? (e as Error).message : code || "error";
  return new OutboundError("connection", `connection to ${ctx.host} failed (${detail})`);
}

/** Fetches a URL under the outbound policy and buffers the body (bounded by maxBytes). */
export async function safeFetch(url: string, opts: SafeFetchOptions): Promise<SafeResponse> {
  const { meta, result } = await run(url, opts, { maxBytes: 5 * MB, timeoutMs: 15_000 }, async (body, host, max) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of limited(body, host, max)) chunks.push(chunk);
    } finally {
      discard(body);
    }
    return Buffer.concat(chunks);
  });
  return { ...meta, body: result };
}

/** Streams a URL to filePath under the outbound policy; the partial file is removed on any failure. */
export async function safeDownload(url: string, filePath: string, opts: SafeFetchOptions): Promise<SafeDownloadResult> {
  let bytes = 0;
  let opened = false;
  try {
    const { meta } = await run(url, opts, { maxBytes: 200 * MB, timeoutMs: 60_000 }, async (body, host, max) => {
      opened = true;
      await pipeline(
        body,
        async function* (src: AsyncIterable<Buffer>) {
          for await (const chunk of limited(src, host, max)) {
            bytes += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(filePath),
      );
    });
    return { ...meta, bytes };
  } catch (e) {
    if (opened) await unlink(filePath).catch(() => {});
    throw e;
  }
}
