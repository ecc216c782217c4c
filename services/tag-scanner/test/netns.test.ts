// The browser's only way out is the scan's egress proxy: its network namespace has a loopback and nothing else, so a
// compromised browser that ignores its proxy setting reaches no host service, and the scan through the proxy still
// works.
import { readlinkSync } from "node:fs";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBrowserPool, type BrowserPool } from "../src/browser-pool.ts";
import { createTagScanner } from "../src/scanner.ts";
import { PIXEL_GIF, send, startFixtureServer, tagJob } from "./helpers.ts";

describe.skipIf(process.env.TAG_SCANNER_NO_NETNS === "1")("browser network namespace", () => {
  let pool: BrowserPool;
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;

  beforeAll(async () => {
    fixture = await startFixtureServer({ "/direct": send("text/plain", "reached"), "/pixel.gif": send("image/gif", PIXEL_GIF) });
    pool = createBrowserPool({ browsers: 1, slots: 2 });
  });
  afterAll(async () => {
    await pool?.close();
    await fixture?.close();
  });

  it("a context that bypasses the proxy reaches nothing on the host", async () => {
    const lease = await pool.acquire();
    try {
      const pid = lease.browser.process()?.pid;
      expect(pid).toBeGreaterThan(0);
      // The browser process lives in another network namespace than this worker.
      expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync("/proc/self/ns/net"));
      // What a compromised browser could do: a context with no proxy at all, straight to a host port.
      const ctx = await lease.browser.createBrowserContext();
      try {
        const page = await ctx.newPage();
        const err = await page.goto(`${fixture.origin}/direct`, { timeout: 10_000 }).then(() => undefined, (e: Error) => e);
        expect(String(err)).toMatch(/ERR_CONNECTION_REFUSED|ERR_ADDRESS_UNREACHABLE|ERR_NETWORK_ACCESS_DENIED/);
        // And from the page's own JavaScript, a fetch and a WebSocket to the host.
        const fromPage = await page.evaluate(async (origin) => {
          const f = await fetch(`${origin}/direct`).then(() => "reached", () => "failed");
          const ws = await new Promise<string>((resolve) => {
            const s = new WebSocket(origin.replace("http", "ws") + "/direct");
            s.onopen = () => resolve("open");
            s.onerror = () => resolve("failed");
          });
          return { f, ws };
        }, fixture.origin).catch(() => ({ f: "failed", ws: "failed" }));
        expect(fromPage).toEqual({ f: "failed", ws: "failed" });
      } finally {
        await ctx.close();
      }
      expect(fixture.seen.filter((r) => r.url === "/direct")).toHaveLength(0);
    } finally {
      lease.release();
    }
  });

  it("a scan through the egress proxy still loads the same host", async () => {
    const scanner = createTagScanner({
      pool, policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]), artifacts: createMemoryArtifactSink(), location: "usa",
      timeouts: { renderMs: 10_000, holdMs: 500 },
    });
    const report = await scanner.scan(tagJob(`<img src="${fixture.origin}/pixel.gif" width="1" height="1"><div style="width:300px;height:250px;background:#0a0"></div>`));
    expect(report.creativeRendered).toBe(true);
    expect(fixture.seen.some((r) => r.url === "/pixel.gif")).toBe(true);
  });
});
