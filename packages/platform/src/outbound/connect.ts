import { Resolver } from "node:dns/promises";
import { type Socket, connect as netConnect, isIP } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { buildConnector } from "undici";
import { OutboundError, REFUSED_PREFIX } from "./errors.ts";
import type { OutboundPolicy } from "./policy.ts";

export interface SafeConnectOptions {
  policy: OutboundPolicy;
  connectTimeoutMs: number;
  /** Wrap the connection in TLS (SNI = host unless it is an IP literal). */
  tls?: boolean;
  signal?: AbortSignal;
  /** Called with every refused candidate (for the proxy's `blocked` record). */
  onRefused?: (ip: string, reason: string) => void;
}

export interface SafeSocket {
  socket: Socket;
  /** The exact address the socket is connected to; it passed the policy. */
  ip: string;
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The default resolver: c-ares queries with a time-out, not dns.lookup. lookup runs getaddrinfo on libuv's small
 * threadpool (4 threads, shared with file I/O and zlib): a creative that loads names from a nameserver that never
 * answers would stall every scan in the process. `localhost` is answered locally (RFC 6761) — the policy then
 * refuses loopback unless it is allowlisted. /etc/hosts is not consulted: scanners only ever fetch the internet.
 */
const DNS_TIMEOUT_MS = 2_500;

/** A resolver on c-ares (optionally with its own nameservers): bounded by time, off libuv's threadpool. */
export function dnsResolver(opts: { servers?: string[]; timeoutMs?: number; tries?: number } = {}): (host: string) => Promise<string[]> {
  const resolver = new Resolver({ timeout: opts.timeoutMs ?? DNS_TIMEOUT_MS, tries: opts.tries ?? 2 });
  if (opts.servers) resolver.setServers(opts.servers);
  return async (host) => {
    const name = host.toLowerCase().replace(/\.$/, "");
    if (name === "localhost" || name.endsWith(".localhost")) return ["127.0.0.1", "::1"];
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    const out = [...(v4.status === "fulfilled" ? v4.value : []), ...(v6.status === "fulfilled" ? v6.value : [])];
    if (out.length > 0) return out;
    throw v4.status === "rejected" ? v4.reason : v6.status === "rejected" ? v6.reason : Object.assign(new Error(`no address for ${name}`), { code: "ENODATA" });
  };
}

export const resolveHost = dnsResolver();

/**
 * Resolves the host and returns the candidates the policy allows on `port`, in resolver order. A name whose every
 * address is refused is an error that tells the client why without disclosing what our resolver answered.
 */
export async function resolveAllowed(host: string, port: number, opts: Pick<SafeConnectOptions, "policy" | "onRefused">): Promise<string[]> {
  const literal = isIP(host) !== 0;
  let candidates: string[];
  if (literal) {
    candidates = [host];
  } else {
    try {
      candidates = opts.policy.resolve
        ? await opts.policy.resolve(host)
        : await resolveHost(host);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? "error";
      throw new OutboundError("dns", `could not resolve host ${host} (${code})`);
    }
  }
  const allowed: string[] = [];
  let firstRefusal: { reason: string; category?: string } | undefined;
  for (const ip of candidates) {
    const d = opts.policy.check(ip, port);
    if (d.allowed) {
      allowed.push(ip);
    } else {
      firstRefusal ??= d;
      opts.onRefused?.(ip, d.reason);
    }
  }
  if (allowed.length === 0) {
    // An address refusal of a name says only the kind of address it resolved to; a port refusal names the host as the
    // client wrote it and the port.
    const why =
      firstRefusal?.category === "port"
        ? firstRefusal.reason.replace(/^port (\d+) /, `port $1 of ${host} `)
        : literal
          ? firstRefusal?.reason ?? `${host} is not allowed`
          : `${host} resolves to a non-public address${firstRefusal?.category ? ` (${firstRefusal.category})` : ""}`;
    throw new OutboundError("blocked_address", `${REFUSED_PREFIX}${why}`);
  }
  return allowed;
}

function connectOne(host: string, ip: string, port: number, ms: number, opts: SafeConnectOptions): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const raw = netConnect({ host: ip, port, noDelay: true });
    let current: Socket = raw;
    const timer = setTimeout(
      () => fail(new OutboundError("connect_timeout", `connecting to ${hostPort(host, port)} timed out after ${opts.connectTimeoutMs} ms`)),
      ms,
    );
    const onAbort = (): void => fail(opts.signal?.reason ?? new Error("aborted"));
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const onError = (e: Error): void => {
      const code = (e as NodeJS.ErrnoException).code;
      // A failed handshake is the host's answer (another address of the same name would answer the same): marked so
      // that safeConnect reports it instead of trying the next address.
      if (current !== raw) fail(Object.assign(new OutboundError("connection", `TLS handshake with ${hostPort(host, port)} failed: ${e.message}`), { handshake: true }));
      else fail(new OutboundError("connection", `could not connect to ${hostPort(host, port)} (${code ?? e.message})`));
    };
    function cleanup(): void {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      raw.off("error", onError);
      current.off("error", onError);
    }
    function fail(err: unknown): void {
      cleanup();
      // A late error after destroy must not become an uncaught exception.
      current.on("error", () => {});
      raw.on("error", () => {});
      current.destroy();
      raw.destroy();
      reject(err);
    }
    function done(s: Socket): void {
      cleanup();
      resolve(s);
    }
    if (opts.signal?.aborted) return onAbort();
    raw.on("error", onError);
    raw.once("connect", () => {
      if (!opts.tls) return done(raw);
      const t = tlsConnect({ socket: raw, servername: isIP(host) ? undefined : host, ALPNProtocols: ["http/1.1"] });
      current = t;
      t.on("error", onError);
      t.once("secureConnect", () => done(t));
    });
  });
}

/**
 * Resolves, checks every candidate (address and port) and connects to the exact address that passed (no second
 * lookup, hence no DNS rebinding window). Falls back to the next allowed candidate when one refuses the connection.
 */
export async function safeConnect(hostIn: string, port: number, opts: SafeConnectOptions): Promise<SafeSocket> {
  const host = stripBrackets(hostIn);
  const deadline = Date.now() + opts.connectTimeoutMs;
  const timeoutError = (): OutboundError =>
    new OutboundError("connect_timeout", `connecting to ${hostPort(host, port)} timed out after ${opts.connectTimeoutMs} ms`);
  let timer: NodeJS.Timeout | undefined;
  const ips = await Promise.race([
    resolveAllowed(host, port, opts),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timeoutError()), opts.connectTimeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  let lastError: unknown;
  for (const ip of ips) {
    const left = deadline - Date.now();
    if (left <= 0) throw timeoutError();
    try {
      return { socket: await connectOne(host, ip, port, left, opts), ip };
    } catch (e) {
      if (!(e instanceof OutboundError) || e.code !== "connection" || (e as { handshake?: boolean }).handshake) throw e;
      lastError = e;
    }
  }
  throw lastError;
}

/** An undici `connect` function that routes every connection through safeConnect and reports the address used. */
export function safeUndiciConnector(
  opts: SafeConnectOptions,
  onConnected: (origin: string, ip: string) => void,
): buildConnector.connector {
  return (o, callback) => {
    const https = o.protocol === "https:";
    const port = Number(o.port) || (https ? 443 : 80);
    safeConnect(o.hostname, port, { ...opts, tls: https }).then(
      ({ socket, ip }) => {
        onConnected(`${o.protocol}//${o.host ?? hostPort(o.hostname, port)}`, ip);
        callback(null, socket);
      },
      (e: Error) => callback(e, null),
    );
  };
}
