import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type IncomingMessage, type Server, createServer, request } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect as tlsConnect } from "node:tls";
import { type AddressInfo, type Socket, connect as netConnect, createServer as createTcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EgressProxy, createOutboundPolicy, startEgressProxy } from "../src/outbound/index.ts";
import { until } from "@cva/platform/testing/index.ts";

const loopback = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);
const publicOnly = createOutboundPolicy([]);

let origin: Server;
let port: number;
const originSockets = new Set<Socket>();
let lastHeaders: IncomingMessage["headers"] = {};

beforeAll(async () => {
  origin = createServer((req, res) => {
    lastHeaders = req.headers;
    res.setHeader("X-Seen-Path", req.url ?? "");
    if (req.url?.startsWith("/a/")) {
      res.setHeader("Connection", "keep-alive, x-hop");
      res.setHeader("X-Hop", "should not pass");
    }
    res.end(`hello ${req.method}`);
  });
  origin.on("connection", (s: Socket) => {
    originSockets.add(s);
    s.on("close", () => originSockets.delete(s));
  });
  await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
  port = (origin.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of originSockets) s.destroy();
  await new Promise((r) => origin.close(r));
});

function viaProxy(proxy: EgressProxy, url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingMessage["headers"]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: proxy.port, path: url, headers: { host: new URL(url).host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Opens a CONNECT tunnel; resolves with the status and, on 200, the raw socket. */
function tunnel(proxy: EgressProxy, authority: string): Promise<{ status: number; socket: Socket; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: proxy.port, method: "CONNECT", path: authority });
    req.on("connect", (res, socket: Socket, head: Buffer) => {
      // Node reports every answer to CONNECT here; a refusal's body follows on the socket.
      if (res.statusCode === 200) return resolve({ status: 200, socket, body: "" });
      void readAll(socket).then((rest) => resolve({ status: res.statusCode ?? 0, socket, body: head.toString() + rest }));
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, socket: res.socket, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end();
  });
}

function readAll(s: Socket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    s.on("data", (c: Buffer) => chunks.push(c));
    s.on("close", () => resolve(Buffer.concat(chunks).toString()));
  });
}

describe("egress proxy", () => {
  it("forwards plain HTTP, stripping hop-by-hop and Proxy-* headers", async () => {
    const proxy = await startEgressProxy({ policy: loopback });
    try {
      expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}`);
      const r = await viaProxy(proxy, `http://127.0.0.1:${port}/a/b?c=1`, {
        "Proxy-Authorization": "Basic eDp5",
        "Proxy-Connection": "keep-alive",
        Connection: "keep-alive, x-drop",
        "X-Drop": "1",
        "X-Keep": "2",
      });
      expect(r.status).toBe(200);
      expect(r.body).toBe("hello GET");
      expect(r.headers["x-seen-path"]).toBe("/a/b?c=1");
      expect(r.headers["x-hop"]).toBeUndefined();
      expect(lastHeaders["x-keep"]).toBe("2");
      expect(lastHeaders["x-drop"]).toBeUndefined();
      expect(lastHeaders["proxy-authorization"]).toBeUndefined();
      expect(lastHeaders["proxy-connection"]).toBeUndefined();
      expect(lastHeaders.host).toBe(`127.0.0.1:${port}`);
      expect(proxy.resolvedIp("127.0.0.1")).toBe("127.0.0.1");
      expect(proxy.bytesIn).toBeGreaterThan(0);
      expect(proxy.bytesOut).toBeGreaterThan(0);
      expect(proxy.blocked).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it("records the address used for a name", async () => {
    const proxy = await startEgressProxy({ policy: loopback });
    try {
      const r = await viaProxy(proxy, `http://localhost:${port}/`);
      expect(r.status).toBe(200);
      expect(proxy.resolvedIp("localhost")).toBe("127.0.0.1");
      expect(proxy.resolvedIp(`localhost:${port}`)).toBe("127.0.0.1");
      expect(proxy.resolvedIp("example.com")).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it("tunnels CONNECT to an allowed server", async () => {
    const proxy = await startEgressProxy({ policy: loopback });
    try {
      const t = await tunnel(proxy, `127.0.0.1:${port}`);
      expect(t.status).toBe(200);
      const response = readAll(t.socket);
      t.socket.write(`GET /tunnelled HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
      const text = await response;
      expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(text).toMatch(/x-seen-path: \/tunnelled/i);
      expect(text).toContain("hello GET");
      expect(proxy.resolvedIp(`127.0.0.1:${port}`)).toBe("127.0.0.1");
    } finally {
      await proxy.close();
    }
  });

  it("keeps TLS end to end through CONNECT (the browser sees the origin's certificate)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "outbound-proxy-tls-"));
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
      "-subj", "/CN=localhost", "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")], { stdio: "ignore" });
    const cert = readFileSync(path.join(dir, "cert.pem"));
    const tlsOrigin = createHttpsServer({ key: readFileSync(path.join(dir, "key.pem")), cert }, (_req, res) => res.end("secure hello"));
    await new Promise<void>((r) => tlsOrigin.listen(0, "127.0.0.1", r));
    const tlsPort = (tlsOrigin.address() as AddressInfo).port;
    const proxy = await startEgressProxy({ policy: loopback });
    try {
      const t = await tunnel(proxy, `localhost:${tlsPort}`);
      expect(t.status).toBe(200);
      const secure = tlsConnect({ socket: t.socket, servername: "localhost", ca: cert });
      await new Promise<void>((resolve, reject) => secure.once("secureConnect", resolve).once("error", reject));
      expect(secure.getPeerCertificate().subject.CN).toBe("localhost");
      const response = readAll(secure);
      secure.write(`GET / HTTP/1.1\r\nHost: localhost:${tlsPort}\r\nConnection: close\r\n\r\n`);
      expect(await response).toContain("secure hello");
      expect(proxy.resolvedIp("localhost")).toBe("127.0.0.1");
    } finally {
      await proxy.close();
      tlsOrigin.closeAllConnections();
      await new Promise((r) => tlsOrigin.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers 403 to refused targets and records them", async () => {
    const proxy = await startEgressProxy({ policy: publicOnly });
    try {
      const plain = await viaProxy(proxy, `http://127.0.0.1:${port}/`);
      expect(plain.status).toBe(403);
      expect(plain.body).toContain("refused by the outbound policy");
      const t = await tunnel(proxy, `127.0.0.1:${port}`);
      expect(t.status).toBe(403);
      t.socket.destroy();
      const named = await tunnel(proxy, `localhost:${port}`);
      expect(named.status).toBe(403);
      expect(named.body).toBe("refused by the outbound policy: localhost resolves to a non-public address (loopback)");
      named.socket.destroy();
      const meta = await tunnel(proxy, "169.254.169.254:80");
      expect(meta.status).toBe(403);
      meta.socket.destroy();
      expect(proxy.blocked).toHaveLength(4);
      expect(proxy.blocked[0]).toMatchObject({ host: "127.0.0.1", ip: "127.0.0.1" });
      expect(proxy.blocked[2]).toMatchObject({ host: "localhost", ip: "127.0.0.1" });
      expect(proxy.blocked[3]).toEqual({ host: "169.254.169.254", ip: "169.254.169.254", reason: "169.254.169.254 is a link-local (metadata) address" });
      expect(proxy.blocked[2]!.reason).toBe("localhost resolves to a non-public address (loopback)");
      expect(proxy.resolvedIp("127.0.0.1")).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it("refuses the numeric-host trick in CONNECT", async () => {
    const proxy = await startEgressProxy({ policy: publicOnly });
    try {
      for (const authority of [`2130706433:${port}`, `[::ffff:7f00:1]:${port}`, `0.0.0.0:${port}`]) {
        const t = await tunnel(proxy, authority);
        expect(t.status, authority).toBe(403);
        t.socket.destroy();
      }
      expect(proxy.blocked.map((b) => b.host)).toEqual(["127.0.0.1", "[::ffff:7f00:1]", "0.0.0.0"]);
    } finally {
      await proxy.close();
    }
  });

  it("rejects requests that are not proxy requests", async () => {
    const proxy = await startEgressProxy({ policy: loopback });
    try {
      const r = await new Promise<number>((resolve, reject) => {
        request({ host: "127.0.0.1", port: proxy.port, path: "/" }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on("error", reject)
          .end();
      });
      expect(r).toBe(400);
    } finally {
      await proxy.close();
    }
  });

  it("close() destroys open tunnels", async () => {
    const held = new Set<Socket>();
    const tcp = createTcpServer((s) => {
      held.add(s);
      s.on("error", () => {});
      s.on("close", () => held.delete(s));
    });
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
    const tcpPort = (tcp.address() as AddressInfo).port;
    const proxy = await startEgressProxy({ policy: loopback });
    const t = await tunnel(proxy, `127.0.0.1:${tcpPort}`);
    expect(t.status).toBe(200);
    // A keep-alive client connection to the proxy must not hold close() either.
    const idle = netConnect(proxy.port, "127.0.0.1");
    await new Promise((r) => idle.once("connect", r));
    const clientClosed = new Promise((r) => t.socket.once("close", r));
    const idleClosed = new Promise((r) => idle.once("close", r));
    await proxy.close();
    await clientClosed;
    await idleClosed;
    // The upstream side closes once the proxy's end of the tunnel is destroyed: wait for that, not for a fixed time.
    await until("the tunnels' upstream sockets to close", async () => held.size, (n) => n === 0, 5_000);
    await new Promise((r) => tcp.close(r));
  });
});
