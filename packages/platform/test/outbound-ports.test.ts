// Hostile: outbound connections to the odd ports of public addresses (cross-protocol requests — `http://host:25/`
// speaking HTTP to a mail server, `:6379` to a Redis, `:11211` to a memcached — sent from our egress addresses on a
// creative's behalf). Only 80 and 443 plus the operator's OUTBOUND_ALLOWED_PORTS are reached on public addresses,
// checked at connect time for every server-side fetch, every redirect hop and every browser request through the egress
// proxy; the refusal says which port, as an unreachable host says why. Ranges the operator opened with
// OUTBOUND_ALLOWLIST keep every port (their fixtures and internal ad servers listen where they listen).
import { type IncomingMessage, type Server, createServer, request } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutboundError, createOutboundPolicy, outboundPolicyFromEnv, safeFetch, startEgressProxy, staticHostResolver, type EgressProxy } from "../src/outbound/index.ts";

// A public address no test ever reaches: the refusal comes before any connection is tried.
const PUBLIC_IP = "93.184.216.34";
const resolve = staticHostResolver({ "mail.example": PUBLIC_IP, "web.example": PUBLIC_IP, "fixture.example": "127.0.0.1" });
const policy = createOutboundPolicy(["127.0.0.0/8"], { resolve });

let fixture: Server;
let fixturePort: number;
const sockets = new Set<Socket>();

beforeAll(async () => {
  fixture = createServer((req, res) => {
    const to = new URL(req.url ?? "/", "http://x").searchParams.get("to");
    if (to) res.writeHead(302, { location: to }).end();
    else res.end("fixture");
  });
  fixture.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => fixture.listen(0, "127.0.0.1", r));
  fixturePort = (fixture.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => fixture.close(r));
});

async function failure(p: Promise<unknown>): Promise<OutboundError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(OutboundError);
  return e as OutboundError;
}

describe("outbound ports: the policy", () => {
  it("allows 80 and 443 on a public address and refuses every other port, naming it", () => {
    const none = createOutboundPolicy([]);
    expect(none.check(PUBLIC_IP, 80).allowed).toBe(true);
    expect(none.check(PUBLIC_IP, 443).allowed).toBe(true);
    for (const port of [25, 22, 6379, 11211, 8080, 0, 65535]) {
      const d = none.check(PUBLIC_IP, port);
      expect(d.allowed, String(port)).toBe(false);
      expect(d.reason).toBe(`port ${port} is not allowed (ports 80, 443 only)`);
      expect(d.category).toBe("port");
    }
    expect(none.check("2606:4700:4700::1111", 25).allowed).toBe(false);
    // A refused address stays refused for its own reason, whatever the port.
    expect(none.check("169.254.169.254", 80).reason).toBe("169.254.169.254 is a link-local (metadata) address");
    expect(none.check("10.0.0.1", 25).reason).toBe("10.0.0.1 is a private address");
  });

  it("adds the operator's OUTBOUND_ALLOWED_PORTS, and refuses a malformed list at start", () => {
    const p = outboundPolicyFromEnv({ OUTBOUND_ALLOWED_PORTS: "8080, 8443" });
    expect(p.check(PUBLIC_IP, 8080).allowed).toBe(true);
    expect(p.check(PUBLIC_IP, 8443).allowed).toBe(true);
    expect(p.check(PUBLIC_IP, 25).reason).toBe("port 25 is not allowed (ports 80, 443, 8080, 8443 only)");
    expect(p.describe()).toContain("ports 80, 443, 8080, 8443");
    for (const bad of ["25x", "0", "70000", "80-90", "-1"]) {
      expect(() => outboundPolicyFromEnv({ OUTBOUND_ALLOWED_PORTS: bad }), bad).toThrow(/^OUTBOUND_ALLOWED_PORTS: /);
    }
  });

  it("leaves every port of an allowlisted private range open, but not of a public address inside a broad entry", () => {
    expect(policy.check("127.0.0.1", fixturePort).allowed).toBe(true);
    expect(policy.check("127.0.0.1", 25).allowed).toBe(true);
    const everything = createOutboundPolicy(["0.0.0.0/0", "::/0"]);
    expect(everything.check("10.1.2.3", 25).allowed).toBe(true);
    expect(everything.check(PUBLIC_IP, 25).allowed).toBe(false);
  });
});

describe("outbound ports: at connect time", () => {
  it("refuses a server-side fetch of http://host:25/ as it refuses a blocked host, before connecting", async () => {
    const e = await failure(safeFetch("http://mail.example:25/", { policy, connectTimeoutMs: 2000 }));
    expect(e.code).toBe("blocked_address");
    expect(e.message).toBe("refused by the outbound policy: port 25 of mail.example is not allowed (ports 80, 443 only)");
    const literal = await failure(safeFetch(`https://${PUBLIC_IP}:6379/`, { policy, connectTimeoutMs: 2000 }));
    expect(literal.message).toBe(`refused by the outbound policy: port 6379 of ${PUBLIC_IP} is not allowed (ports 80, 443 only)`);
  });

  it("refuses a redirect hop to another port of a public host", async () => {
    const to = encodeURIComponent("http://mail.example:25/");
    const e = await failure(safeFetch(`http://fixture.example:${fixturePort}/?to=${to}`, { policy, connectTimeoutMs: 2000 }));
    expect(e.code).toBe("blocked_address");
    expect(e.message).toBe("refused by the outbound policy: port 25 of mail.example is not allowed (ports 80, 443 only)");
  });

  it("still reaches an allowlisted fixture on its ephemeral port", async () => {
    const r = await safeFetch(`http://fixture.example:${fixturePort}/`, { policy });
    expect(r.body.toString()).toBe("fixture");
  });

  it("answers the browser's CONNECT and plain requests to other ports with 403 and records them", async () => {
    const proxy = await startEgressProxy({ policy, connectTimeoutMs: 2000 });
    try {
      const t = await tunnel(proxy, "mail.example:25");
      expect(t.status).toBe(403);
      expect(t.body).toBe("refused by the outbound policy: port 25 of mail.example is not allowed (ports 80, 443 only)");
      const plain = await viaProxy(proxy, "http://web.example:6379/");
      expect(plain.status).toBe(403);
      expect(plain.body).toBe("refused by the outbound policy: port 6379 of web.example is not allowed (ports 80, 443 only)");
      expect(proxy.blocked).toEqual([
        { host: "mail.example", ip: PUBLIC_IP, reason: "port 25 of mail.example is not allowed (ports 80, 443 only)" },
        { host: "web.example", ip: PUBLIC_IP, reason: "port 6379 of web.example is not allowed (ports 80, 443 only)" },
      ]);
      // The allowlisted fixture on its own port still goes through.
      expect((await viaProxy(proxy, `http://fixture.example:${fixturePort}/`)).body).toBe("fixture");
    } finally {
      await proxy.close();
    }
  });
});

function viaProxy(proxy: EgressProxy, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolveReq, reject) => {
    const req = request({ host: "127.0.0.1", port: proxy.port, path: url, headers: { host: new URL(url).host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolveReq({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end();
  });
}

function tunnel(proxy: EgressProxy, authority: string): Promise<{ status: number; body: string }> {
  return new Promise((resolveReq, reject) => {
    const req = request({ host: "127.0.0.1", port: proxy.port, method: "CONNECT", path: authority });
    req.on("connect", (res: IncomingMessage, socket: Socket, head: Buffer) => {
      const chunks: Buffer[] = [head];
      socket.on("data", (c: Buffer) => chunks.push(c));
      socket.on("close", () => resolveReq({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      if (res.statusCode === 200) socket.destroy();
    });
    req.on("error", reject);
    req.end();
  });
}
