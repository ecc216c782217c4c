import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { mkdtemp, rm } from "node:fs/promises";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import { type AddressInfo, type Server as NetServer, type Socket, createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutboundError, createOutboundPolicy, safeDownload, safeFetch } from "../src/outbound/index.ts";

const loopback = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);
const publicOnly = createOutboundPolicy([]);
const BIG = Buffer.alloc(1024 * 1024, 0x61);

let server: Server;
let server6: Server | undefined;
let base: string;
let port: number;
let port6 = 0;
let dir: string;
const sockets = new Set<Socket>();

function handler(req: IncomingMessage, res: ServerResponse): void {
  const u = new URL(req.url ?? "/", "http://x");
  const p = u.pathname;
  if (p === "/hello") {
    res.setHeader("X-Multi", ["a", "b"]);
    res.setHeader("Set-Cookie", ["a=1; Path=/", "b=2; Path=/"]);
    res.setHeader("Content-Type", "text/plain");
    res.end("hello");
  } else if (p.startsWith("/redirect/")) {
    const n = Number(p.slice("/redirect/".length));
    res.writeHead(302, { location: n > 0 ? `/redirect/${n - 1}` : "/hello" }).end();
  } else if (p === "/loop") {
    res.writeHead(301, { location: "/loop" }).end();
  } else if (p === "/to") {
    res.writeHead(Number(u.searchParams.get("status") ?? 302), { location: u.searchParams.get("url") ?? "/" }).end();
  } else if (p === "/echo") {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ method: req.method, body: Buffer.concat(chunks).toString(), headers: req.headers }));
    });
  } else if (p === "/big") {
    // Written in chunks without Content-Length: the limit must hold while streaming.
    res.writeHead(200, { "content-type": "application/octet-stream" });
    for (let i = 0; i < 16; i++) res.write(BIG.subarray(i * 65536, (i + 1) * 65536));
    res.end();
  } else if (p === "/big-cl") {
    res.writeHead(200, { "content-length": String(BIG.length) });
    res.end(BIG);
  } else if (p === "/gzip") {
    res.writeHead(200, { "content-encoding": "gzip" });
    res.end(gzipSync(Buffer.from("compressed hello")));
  } else if (p === "/drip") {
    res.writeHead(200);
    const t = setInterval(() => res.write("x"), 50);
    res.on("close", () => clearInterval(t));
  } else if (p === "/hang") {
    // never answers
  } else if (p === "/status") {
    res.writeHead(418, "Short And Stout").end();
  } else {
    res.writeHead(404).end();
  }
}

function listen(s: NetServer, host: string): Promise<number> {
  s.on("connection", (c: Socket) => {
    sockets.add(c);
    c.on("close", () => sockets.delete(c));
  });
  return new Promise((resolve, reject) => {
    s.once("error", reject);
    s.listen(0, host, () => resolve((s.address() as AddressInfo).port));
  });
}

beforeAll(async () => {
  server = createServer(handler);
  port = await listen(server, "127.0.0.1");
  base = `http://127.0.0.1:${port}`;
  try {
    server6 = createServer(handler);
    port6 = await listen(server6, "::1");
  } catch {
    server6 = undefined;
  }
  dir = await mkdtemp(path.join(tmpdir(), "outbound-test-"));
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
  if (server6) await new Promise((r) => server6!.close(r));
  await rm(dir, { recursive: true, force: true });
});

async function failure(p: Promise<unknown>): Promise<OutboundError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(OutboundError);
  return e as OutboundError;
}

describe("safeFetch", () => {
  it("returns status, headers, body and the server address", async () => {
    const r = await safeFetch(`${base}/hello`, { policy: loopback });
    expect(r.status).toBe(200);
    expect(r.statusText).toBe("OK");
    expect(r.body.toString()).toBe("hello");
    expect(r.headers["content-type"]).toBe("text/plain");
    expect(r.headers["x-multi"]).toBe("a, b");
    expect(r.headers["set-cookie"]).toBe("a=1; Path=/\nb=2; Path=/");
    expect(r.serverIp).toBe("127.0.0.1");
    expect(r.url).toBe(`${base}/hello`);
    expect(r.redirects).toEqual([]);
    expect(r.timeMs).toBeGreaterThanOrEqual(r.ttfbMs);
  });

  it("keeps the server's reason phrase", async () => {
    const r = await safeFetch(`${base}/status`, { policy: loopback });
    expect(r.status).toBe(418);
    expect(r.statusText).toBe("Short And Stout");
  });

  it("follows redirects and records them", async () => {
    const r = await safeFetch(`${base}/redirect/2`, { policy: loopback });
    expect(r.status).toBe(200);
    expect(r.url).toBe(`${base}/hello`);
    expect(r.redirects).toEqual([`${base}/redirect/2`, `${base}/redirect/1`, `${base}/redirect/0`]);
    expect(r.serverIp).toBe("127.0.0.1");
  });

  it("turns POST into GET on 303 and keeps it on 307", async () => {
    const r303 = await safeFetch(`${base}/to?status=303&url=/echo`, { policy: loopback, method: "POST", body: "x=1", headers: { "Content-Type": "text/plain" } });
    const echoed = JSON.parse(r303.body.toString());
    expect(echoed.method).toBe("GET");
    expect(echoed.body).toBe("");
    expect(echoed.headers["content-type"]).toBeUndefined();
    const r307 = await safeFetch(`${base}/to?status=307&url=/echo`, { policy: loopback, method: "POST", body: new TextEncoder().encode("x=2") });
    expect(JSON.parse(r307.body.toString())).toMatchObject({ method: "POST", body: "x=2" });
  });

  it("sends URL credentials as Basic auth but never reports them", async () => {
    const r = await safeFetch(`http://user:s3cret@127.0.0.1:${port}/echo`, { policy: loopback });
    expect(JSON.parse(r.body.toString()).headers.authorization).toBe(`Basic ${Buffer.from("user:s3cret").toString("base64")}`);
    expect(r.url).toBe(`${base}/echo`);
  });

  it("drops credentials on a cross-origin redirect", async () => {
    const other = `http://localhost:${port}/echo`;
    const r = await safeFetch(`${base}/to?url=${encodeURIComponent(other)}`, { policy: loopback, headers: { Authorization: "Bearer t", Cookie: "c=1" } });
    const echoed = JSON.parse(r.body.toString());
    expect(echoed.headers.authorization).toBeUndefined();
    expect(echoed.headers.cookie).toBeUndefined();
  });

  it("decodes a gzip body", async () => {
    const r = await safeFetch(`${base}/gzip`, { policy: loopback });
    expect(r.body.toString()).toBe("compressed hello");
  });

  it("reaches an IPv6 loopback server", async (ctx) => {
    if (!server6) ctx.skip();
    const r = await safeFetch(`http://[::1]:${port6}/hello`, { policy: loopback });
    expect(r.serverIp).toBe("::1");
    expect(r.body.toString()).toBe("hello");
  });

  it("refuses a redirect to a refused address", async () => {
    for (const target of ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://[fd00:ec2::254]/"]) {
      const e = await failure(safeFetch(`${base}/to?url=${encodeURIComponent(target)}`, { policy: loopback }));
      expect(e.code, target).toBe("blocked_address");
      expect(e.message).toMatch(/^refused by the outbound policy: /);
    }
    const meta = await failure(safeFetch(`${base}/to?url=${encodeURIComponent("http://169.254.169.254/")}`, { policy: loopback }));
    expect(meta.message).toBe("refused by the outbound policy: 169.254.169.254 is a link-local (metadata) address");
  });

  it("refuses a redirect to another scheme", async () => {
    const e = await failure(safeFetch(`${base}/to?url=${encodeURIComponent("file:///etc/passwd")}`, { policy: loopback }));
    expect(e.code).toBe("bad_scheme");
  });

  it("stops after maxRedirects", async () => {
    expect((await failure(safeFetch(`${base}/loop`, { policy: loopback }))).code).toBe("too_many_redirects");
    expect((await failure(safeFetch(`${base}/redirect/3`, { policy: loopback, maxRedirects: 2 }))).code).toBe("too_many_redirects");
    expect((await safeFetch(`${base}/redirect/1`, { policy: loopback, maxRedirects: 2 })).status).toBe(200);
  });

  it("enforces maxBytes while streaming and from Content-Length", async () => {
    const streamed = await failure(safeFetch(`${base}/big`, { policy: loopback, maxBytes: 100_000 }));
    expect(streamed.code).toBe("too_large");
    expect((await failure(safeFetch(`${base}/big-cl`, { policy: loopback, maxBytes: 100_000 }))).code).toBe("too_large");
    expect((await safeFetch(`${base}/big`, { policy: loopback })).body.length).toBe(BIG.length);
  });

  it("times out on a server that never answers", async () => {
    const e = await failure(safeFetch(`${base}/hang`, { policy: loopback, timeoutMs: 300 }));
    expect(e.code).toBe("timeout");
  });

  it("bounds the whole call, not just the wait for headers", async () => {
    const e = await failure(safeFetch(`${base}/drip`, { policy: loopback, timeoutMs: 400 }));
    expect(e.code).toBe("timeout");
  });

  it("counts the TLS handshake in the connect time-out", async () => {
    const silent = createTcpServer((s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    const silentPort = await listen(silent, "127.0.0.1");
    try {
      const e = await failure(safeFetch(`https://127.0.0.1:${silentPort}/`, { policy: loopback, connectTimeoutMs: 200 }));
      expect(e.code).toBe("connect_timeout");
      expect(e.message).toBe(`connecting to 127.0.0.1:${silentPort} timed out after 200 ms`);
    } finally {
      for (const s of sockets) if (s.localPort === silentPort) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it("does not apply the size limit to a HEAD response's Content-Length", async () => {
    const r = await safeFetch(`${base}/big-cl`, { policy: loopback, method: "HEAD", maxBytes: 10 });
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(0);
  });

  it("passes the caller's abort reason through", async () => {
    const ac = new AbortController();
    const p = safeFetch(`${base}/hang`, { policy: loopback, signal: ac.signal });
    setTimeout(() => ac.abort(new Error("job cancelled")), 50);
    await expect(p).rejects.toThrow("job cancelled");
  });

  it.each(["file:///etc/passwd", "ftp://example.com/x", "data:text/plain,hi", "javascript:alert(1)", "gopher://127.0.0.1:70/"])(
    "refuses the scheme of %s",
    async (url) => {
      expect((await failure(safeFetch(url, { policy: loopback }))).code).toBe("bad_scheme");
    },
  );

  it("refuses an unparsable URL", async () => {
    expect((await failure(safeFetch("not a url", { policy: loopback }))).code).toBe("bad_url");
  });

  it.each(["http://2130706433:PORT/hello", "http://0x7f.1:PORT/hello", "http://0177.0.0.1:PORT/hello", "http://127.1:PORT/hello", "http://[::ffff:7f00:1]:PORT/hello", "http://[::ffff:127.0.0.1]:PORT/hello", "http://0.0.0.0:PORT/hello", "http://[::]:PORT/hello"])(
    "refuses the numeric-host trick %s without the allowlist",
    async (tpl) => {
      const e = await failure(safeFetch(tpl.replace("PORT", String(port)), { policy: publicOnly }));
      expect(e.code).toBe("blocked_address");
    },
  );

  it("normalises numeric hosts to the address that is checked (allowed with the allowlist)", async () => {
    const r = await safeFetch(`http://2130706433:${port}/hello`, { policy: loopback });
    expect(r.serverIp).toBe("127.0.0.1");
    expect(r.url).toBe(`${base}/hello`);
  });

  it("refuses a name resolving to loopback without disclosing the address", async () => {
    const e = await failure(safeFetch(`http://localhost:${port}/hello`, { policy: publicOnly }));
    expect(e.code).toBe("blocked_address");
    expect(e.message).toBe("refused by the outbound policy: localhost resolves to a non-public address (loopback)");
  });

  it("reports unresolvable names and refused connections", async () => {
    expect((await failure(safeFetch("http://no-such-host.invalid/", { policy: loopback }))).code).toBe("dns");
    const closed = createServer();
    const closedPort = await listen(closed, "127.0.0.1");
    await new Promise((r) => closed.close(r));
    const e = await failure(safeFetch(`http://127.0.0.1:${closedPort}/`, { policy: loopback }));
    expect(e.code).toBe("connection");
    expect(e.message).toContain("ECONNREFUSED");
  });
});

describe("safeDownload", () => {
  it("streams the body to a file", async () => {
    const file = path.join(dir, "ok.bin");
    const r = await safeDownload(`${base}/to?url=/big`, file, { policy: loopback });
    expect(r.bytes).toBe(BIG.length);
    expect(statSync(file).size).toBe(BIG.length);
    expect(r.status).toBe(200);
    expect(r.serverIp).toBe("127.0.0.1");
    expect(r.redirects).toEqual([`${base}/to?url=/big`]);
    expect("body" in r).toBe(false);
  });

  it("removes the partial file when the limit is exceeded", async () => {
    const file = path.join(dir, "too-large.bin");
    const e = await failure(safeDownload(`${base}/big`, file, { policy: loopback, maxBytes: 300_000 }));
    expect(e.code).toBe("too_large");
    expect(existsSync(file)).toBe(false);
  });

  it("removes the partial file on a time-out and refuses blocked targets", async () => {
    const file = path.join(dir, "hang.bin");
    expect((await failure(safeDownload(`${base}/hang`, file, { policy: loopback, timeoutMs: 300 }))).code).toBe("timeout");
    expect(existsSync(file)).toBe(false);
    expect((await failure(safeDownload(`${base}/big`, file, { policy: publicOnly }))).code).toBe("blocked_address");
    expect(existsSync(file)).toBe(false);
  });
});

describe("safeFetch over TLS", () => {
  it("verifies certificates and sends SNI for names", async () => {
    const certDir = path.join(dir, "tls");
    execFileSync("mkdir", ["-p", certDir]);
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
      "-subj", "/CN=localhost", "-keyout", path.join(certDir, "key.pem"), "-out", path.join(certDir, "cert.pem")], { stdio: "ignore" });
    const names: string[] = [];
    const tlsServer = createHttpsServer(
      {
        key: readFileSync(path.join(certDir, "key.pem")),
        cert: readFileSync(path.join(certDir, "cert.pem")),
        SNICallback: (name, cb) => {
          names.push(name);
          cb(null, undefined);
        },
      },
      (_req, res) => res.end("secure"),
    );
    const tlsPort = await listen(tlsServer, "127.0.0.1");
    try {
      const e = await failure(safeFetch(`https://localhost:${tlsPort}/`, { policy: loopback }));
      expect(e.code).toBe("connection");
      expect(e.message).toMatch(new RegExp(`^TLS handshake with localhost:${tlsPort} failed: .*self.signed`));
      expect(names).toContain("localhost");
      const blocked = await failure(safeFetch(`https://localhost:${tlsPort}/`, { policy: publicOnly }));
      expect(blocked.code).toBe("blocked_address");
    } finally {
      await new Promise((r) => tlsServer.close(r));
    }
  });
});
