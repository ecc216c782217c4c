// Hostile: the browser's every request leaves through the scan's egress proxy, whose policy is the page-origin guard's
// (page-origin.ts) — the outbound policy with a running scan's page_url host held public. That wrapper used to call
// the outbound policy without the port, so the port rule of issue 20 (hole 9: public addresses on 80, 443 and
// OUTBOUND_ALLOWED_PORTS only) never reached the browser: a creative's `<img src="http://mail.example:25/">`,
// `fetch("http://host:6379/")` or `new WebSocket("ws://host:11211/")` was connected to, from our egress address.
import { type IncomingMessage, request } from "node:http";
import type { Socket } from "node:net";
import { createOutboundPolicy, startEgressProxy, staticHostResolver, type EgressProxy } from "@cva/platform";
import { describe, expect, it } from "vitest";
import { createPageOriginGuard } from "../src/page-origin.ts";

// A public address no test reaches: the refusal must come before any connection is tried.
const PUBLIC_IP = "93.184.216.34";
const outbound = createOutboundPolicy(["127.0.0.0/8"], { resolve: staticHostResolver({ "mail.example": PUBLIC_IP, "page.example": PUBLIC_IP }) });

describe("the page-origin guard keeps the outbound policy's port rule", () => {
  it("refuses a public address on a port other than 80/443, as the outbound policy does", () => {
    const guard = createPageOriginGuard(outbound);
    expect(guard.policy.check(PUBLIC_IP, 443).allowed).toBe(true);
    for (const port of [25, 6379, 11211]) {
      expect(guard.policy.check(PUBLIC_IP, port), String(port)).toEqual(outbound.check(PUBLIC_IP, port));
      expect(guard.policy.check(PUBLIC_IP, port).allowed).toBe(false);
    }
    // Loopback is allowlisted here: every port stays open, as in the outbound policy.
    expect(guard.policy.check("127.0.0.1", 25).allowed).toBe(true);
  });

  it("the scan's egress proxy answers a CONNECT and a plain request to another port with 403, before connecting", async () => {
    const guard = createPageOriginGuard(outbound, createOutboundPolicy([]));
    const release = await guard.admit("https://page.example/");
    const proxy = await startEgressProxy({ policy: guard.policy, connectTimeoutMs: 2_000 });
    try {
      const t = await tunnel(proxy, "mail.example:25");
      expect(t.status).toBe(403);
      expect(t.body).toBe("refused by the outbound policy: port 25 of mail.example is not allowed (ports 80, 443 only)");
      // The page host too (held public while the scan runs): its odd ports stay closed.
      const plain = await viaProxy(proxy, "http://page.example:6379/");
      expect(plain.status).toBe(403);
      expect(plain.body).toBe("refused by the outbound policy: port 6379 of page.example is not allowed (ports 80, 443 only)");
      expect(proxy.blocked.map((b) => b.reason)).toEqual([
        "port 25 of mail.example is not allowed (ports 80, 443 only)",
        "port 6379 of page.example is not allowed (ports 80, 443 only)",
      ]);
    } finally {
      release();
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
