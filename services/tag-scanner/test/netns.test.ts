// The browser's only way out is the scan's egress proxy: its network namespace has a loopback and nothing else, so a
// compromised browser that ignores its proxy setting reaches no host service, and the scan through the proxy still
// works.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
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

// Issue 20, hole 4: Chromium (as `nobody`) inherited NATS_USER/NATS_PASSWORD/NATS_URL and the service-secret digest,
// and its network service ran without a seccomp filter.
describe("the browser's environment and sandbox", () => {
  const SECRETS = { NATS_USER: "tag-scanner", NATS_PASSWORD: `cva-test-secret-${process.pid}`, NATS_URL: "nats://127.0.0.1:4222", CVA_SERVICE_SECRET_SHA256: "cd".repeat(32) };
  const saved: Record<string, string | undefined> = {};
  let pool: BrowserPool;

  beforeAll(() => {
    for (const [k, v] of Object.entries(SECRETS)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    pool = createBrowserPool({ browsers: 1, slots: 1 });
  });
  afterAll(async () => {
    await pool?.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  /** Every process of the browser's process group (puppeteer starts it as a group leader): pid → cmdline, status. */
  function browserProcesses(leader: number) {
    const out: Array<{ pid: number; cmdline: string[]; status: string; environ: string }> = [];
    for (const d of readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== leader) continue;
        out.push({
          // Zygote children rewrite their command line into one space-separated string (setproctitle).
          pid: Number(d), cmdline: readFileSync(`/proc/${d}/cmdline`, "utf8").split(/[\0 ]/), status: readFileSync(`/proc/${d}/status`, "utf8"),
          environ: readFileSync(`/proc/${d}/environ`, "latin1"),
        });
      } catch {
        /* gone meanwhile */
      }
    }
    return out;
  }

  it("no process of the browser inherits the scanner's credentials", async () => {
    const lease = await pool.acquire();
    try {
      const ctx = await lease.browser.createBrowserContext();
      await (await ctx.newPage()).goto("data:text/html,<p>x</p>").catch(() => undefined);
      const procs = browserProcesses(lease.browser.process()!.pid!);
      expect(procs.length).toBeGreaterThan(2);
      for (const p of procs) {
        for (const v of Object.values(SECRETS)) expect(p.environ, `pid ${p.pid} ${p.cmdline[0]}`).not.toContain(v);
        expect(p.environ).not.toMatch(/(^|\0)(NATS_|CVA_SERVICE|CVA_ADMIN)/);
      }
      await ctx.close();
    } finally {
      lease.release();
    }
  });

  it.skipIf(process.env.TAG_SCANNER_NO_SANDBOX === "1")("the network service runs in its sandbox, under a seccomp filter", async () => {
    const lease = await pool.acquire();
    try {
      const ctx = await lease.browser.createBrowserContext();
      await (await ctx.newPage()).goto("data:text/html,<p>x</p>").catch(() => undefined);
      const network = browserProcesses(lease.browser.process()!.pid!).find((p) => p.cmdline.includes("--utility-sub-type=network.mojom.NetworkService"));
      expect(network, "the network service process").toBeDefined();
      expect(network!.cmdline).toContain("--service-sandbox-type=network");
      // 2 = SECCOMP_MODE_FILTER (/proc/<pid>/status), what Chromium's sandbox installs; 0 = none.
      expect(/Seccomp:\s+(\d)/.exec(network!.status)?.[1]).toBe("2");
      await ctx.close();
    } finally {
      lease.release();
    }
  });
});
