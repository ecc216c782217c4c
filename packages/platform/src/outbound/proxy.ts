import { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse, createServer, request as httpRequest } from "node:http";
import type { AddressInfo, Server, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { pipeline } from "node:stream";
import { safeConnect } from "./connect.ts";
import { OutboundError, REFUSED_PREFIX } from "./errors.ts";
import type { OutboundPolicy } from "./policy.ts";

export interface EgressProxyOptions {
  policy: OutboundPolicy;
  /** DNS + TCP connect per upstream; default 5000. */
  connectTimeoutMs?: number;
  /** An idle tunnel or upstream connection is closed after this; default 60 000. */
  idleTimeoutMs?: number;
  /**
   * Where to listen: a listening socket made elsewhere (the tag scanner's is bound inside the browser's network
   * namespace). Default: 127.0.0.1 on a free port.
   */
  listenOn?: () => Promise<Server>;
}

export interface EgressProxy {
  /** http://127.0.0.1:<port>, for Chromium's --proxy-server. */
  url: string;
  port: number;
  /** The address the proxy last connected to for this host ("example.com", "[::1]", "example.com:443"). */
  resolvedIp(host: string): string | undefined;
  /**
   * Refused connections. `host` as in URL.hostname (lower-case, IPv6 in brackets); `reason` is client-safe and, like
   * OutboundPolicy.check().reason, has no "refused by the outbound policy: " prefix; `ip` is what our resolver
   * answered (an internal detail when host is a name: log it, do not show it).
   */
  blocked: Array<{ host: string; ip?: string; reason: string }>;
  /** Bytes received from / sent to upstream servers. */
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Stops listening and destroys every open socket, tunnels included. */
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Drops hop-by-hop headers (also those named in Connection) from a raw [name, value, ...] list. */
function endToEnd(raw: string[]): Array<[string, string]> {
  const listed = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") {
      for (const t of raw[i + 1]!.split(",")) listed.add(t.trim().toLowerCase());
    }
  }
  const out: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || listed.has(name) || name.startsWith("proxy-")) continue;
    out.push([raw[i]!, raw[i + 1]!]);
  }
  return out;
}

function statusFor(e: unknown): number {
  if (!(e instanceof OutboundError)) return 502;
  switch (e.code) {
    case "blocked_address":
      return 403;
    case "bad_url":
    case "bad_scheme":
      return 400;
    case "connect_timeout":
    case "timeout":
      return 504;
    default:
      return 502;
  }
}

function messageOf(e: unknown): string {
  return e instanceof OutboundError ? e.message : "upstream connection failed";
}

function rawResponse(status: number, text: string, body: string): string {
  const len = Buffer.byteLength(body);
  return `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${len}\r\nConnection: close\r\n\r\n${body}`;
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/**
 * A forward proxy for one scan's browser: absolute-URI HTTP requests and CONNECT tunnels (https, wss), each upstream
 * connection made by safeConnect so the policy sees the address actually used. TLS stays end to end.
 */
export async function startEgressProxy(opts: EgressProxyOptions): Promise<EgressProxy> {
  const connectTimeoutMs = opts.connectTimeoutMs ?? 5000;
  const idleTimeoutMs = opts.idleTimeoutMs ?? 60_000;
  const sockets = new Set<Duplex>();
  const upstreams = new Set<Socket>();
  const resolved = new Map<string, string>();
  const blocked: EgressProxy["blocked"] = [];
  let closedIn = 0;
  let closedOut = 0;
  let closing = false;

  const track = (s: Duplex): void => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  };

  async function openUpstream(hostIn: string, port: number): Promise<Socket> {
    const host = stripBrackets(hostIn).toLowerCase();
    const refusedIps: string[] = [];
    try {
      const { socket, ip } = await safeConnect(host, port, {
        policy: opts.policy,
        connectTimeoutMs,
        onRefused: (refusedIp) => refusedIps.push(refusedIp),
      });
      if (closing) {
        socket.destroy();
        throw new OutboundError("connection", "proxy is closing");
      }
      resolved.set(host, ip);
      resolved.set(`${host.includes(":") ? `[${host}]` : host}:${port}`, ip);
      upstreams.add(socket);
      track(socket);
      socket.setTimeout(idleTimeoutMs, () => socket.destroy());
      socket.once("close", () => {
        upstreams.delete(socket);
        closedIn += socket.bytesRead;
        closedOut += socket.bytesWritten;
      });
      return socket;
    } catch (e) {
      if (e instanceof OutboundError && e.code === "blocked_address") {
        blocked.push({
          host: host.includes(":") ? `[${host}]` : host,
          ...(refusedIps[0] ? { ip: refusedIps[0] } : {}),
          reason: e.message.startsWith(REFUSED_PREFIX) ? e.message.slice(REFUSED_PREFIX.length) : e.message,
        });
      }
      throw e;
    }
  }

  function refuse(res: ServerResponse, status: number, body: string): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    res.end(body);
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      return refuse(res, 400, "this is a forward proxy: absolute http URLs or CONNECT only");
    }
    if (target.protocol !== "http:") return refuse(res, 400, `only http URLs are proxied directly (got ${target.protocol})`);
    const port = Number(target.port) || 80;
    let gone = false;
    res.once("close", () => {
      gone = true;
    });
    openUpstream(target.hostname, port).then(
      (socket) => {
        if (gone) return void socket.destroy();
        const headers: OutgoingHttpHeaders = {};
        for (const [name, value] of endToEnd(req.rawHeaders)) {
          const key = name.toLowerCase();
          const prev = headers[key];
          headers[key] = prev === undefined ? value : ([] as string[]).concat(prev as string | string[], value);
        }
        headers.host ??= target.host;
        const up = httpRequest({
          createConnection: () => socket,
          method: req.method,
          path: `${target.pathname}${target.search}`,
          headers,
          setHost: false,
        });
        up.on("response", (ures) => {
          const flat = endToEnd(ures.rawHeaders).flat();
          res.writeHead(ures.statusCode ?? 502, ures.statusMessage, flat);
          pipeline(ures, res, () => {});
        });
        up.on("error", () => refuse(res, 502, "upstream connection failed"));
        res.on("close", () => up.destroy());
        pipeline(req, up, () => {});
      },
      (e: unknown) => refuse(res, statusFor(e), messageOf(e)),
    );
  }

  function onConnect(req: IncomingMessage, client: Duplex, head: Buffer): void {
    track(client);
    client.on("error", () => client.destroy());
    let host: string;
    let port: number;
    try {
      const u = new URL(`http://${req.url ?? ""}`);
      if (!u.hostname || u.pathname !== "/" || u.search || u.username) throw new Error("bad authority");
      host = u.hostname;
      port = Number(u.port) || 443;
    } catch {
      client.end(rawResponse(400, "Bad Request", "CONNECT needs host:port"));
      return;
    }
    openUpstream(host, port).then(
      (up) => {
        if (client.destroyed) return void up.destroy();
        up.on("error", () => client.destroy());
        up.once("close", () => client.destroy());
        client.once("close", () => up.destroy());
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) up.write(head);
        up.pipe(client);
        client.pipe(up);
      },
      (e: unknown) => {
        const status = statusFor(e);
        const text = status === 403 ? "Forbidden" : status === 504 ? "Gateway Timeout" : status === 400 ? "Bad Request" : "Bad Gateway";
        if (!client.destroyed) client.end(rawResponse(status, text, messageOf(e)));
      },
    );
  }

  const server = createServer();
  server.on("connection", (s: Socket) => track(s));
  server.on("request", onRequest);
  server.on("connect", onConnect);
  // Chromium tunnels ws:// through CONNECT; an Upgrade on a plain proxied request is not supported.
  server.on("upgrade", (_req: IncomingMessage, s: Duplex) => s.end(rawResponse(501, "Not Implemented", "use CONNECT for WebSockets")));

  const handle = opts.listenOn ? await opts.listenOn() : undefined;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    const listening = () => {
      server.off("error", reject);
      resolve();
    };
    if (handle) server.listen(handle, listening);
    else server.listen(0, "127.0.0.1", listening);
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    resolvedIp(h: string): string | undefined {
      const key = h.trim().toLowerCase();
      return resolved.get(key) ?? resolved.get(stripBrackets(key));
    },
    blocked,
    get bytesIn(): number {
      let n = closedIn;
      for (const s of upstreams) n += s.bytesRead;
      return n;
    },
    get bytesOut(): number {
      let n = closedOut;
      for (const s of upstreams) n += s.bytesWritten;
      return n;
    },
    close(): Promise<void> {
      closing = true;
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      return done;
    },
  };
}
