// One browser's failure never fails another customer's scan: when the browser two scans share dies under them, each
// is scanned again on a browser of its own; the creative that kills its browser fails alone, the other gets its report.
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBrowserPool, type BrowserPool } from "../src/browser-pool.ts";
import { createTagScanner } from "../src/scanner.ts";
import { PIXEL_GIF, send, startFixtureServer, tagJob } from "./helpers.ts";

describe("a browser lost under shared scans", () => {
  let pool: BrowserPool;
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
  const browsers = new Set<Browser>();
  let innocentStarted!: () => void;
  const innocentRunning = new Promise<void>((r) => (innocentStarted = r));

  beforeAll(async () => {
    fixture = await startFixtureServer({
      // The innocent creative: a banner with a tracking pixel.
      "/innocent.gif": (_req, res) => {
        innocentStarted();
        send("image/gif", PIXEL_GIF)(_req, res);
      },
      // What a browser-killing creative does, played by the test: the browser under it is killed outright — but
      // only once the innocent scan is running on the same browser.
      "/kill.gif": (_req, res) => {
        void innocentRunning.then(() => {
          for (const b of browsers) if (b.connected) b.process()?.kill("SIGKILL");
          res.destroy();
        });
      },
    });
    const real = createBrowserPool({ browsers: 1, slots: 2 });
    pool = {
      ...real,
      get busy() {
        return real.busy;
      },
      async acquire(signal, opts) {
        const lease = await real.acquire(signal, opts);
        browsers.add(lease.browser);
        return lease;
      },
    };
  });
  afterAll(async () => {
    await pool?.close();
    await fixture?.close();
  });

  it("the innocent scan gets its report; the killer fails alone", async () => {
    const scanner = createTagScanner({
      pool, policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]), artifacts: createMemoryArtifactSink(), location: "usa",
      timeouts: { renderMs: 15_000, holdMs: 500 },
      logger: process.env.CVA_SCAN_LOG ? { info: (o, m) => console.log(Date.now() % 100000, m, JSON.stringify(o)), warn: (o, m) => console.log(Date.now() % 100000, m, JSON.stringify(o)), error: (o, m) => console.log(Date.now() % 100000, m, JSON.stringify(o)) } : undefined,
    });
    const killer = scanner.scan(tagJob(`<img src="${fixture.origin}/kill.gif" width="1" height="1"><div style="width:300px;height:250px;background:#a00"></div>`));
    const innocent = scanner.scan(tagJob(`<img src="${fixture.origin}/innocent.gif" width="1" height="1"><div style="width:300px;height:250px;background:#0a0;animation:f 1s"></div><style>@keyframes f{to{opacity:.5}}</style>`));
    const [k, i] = await Promise.allSettled([killer, innocent]);
    expect(k.status).toBe("rejected");
    expect(i.status).toBe("fulfilled");
    const report = i.status === "fulfilled" ? i.value : undefined;
    expect(report?.creativeRendered).toBe(true);
    expect(report?.dimensions).toMatchObject({ width: 300, height: 250 });
    // Killed twice (first the shared browser, then the killer's own on its retry); the innocent creative loaded twice.
    expect(fixture.seen.filter((r) => r.url === "/kill.gif").length).toBe(2);
    expect(fixture.seen.filter((r) => r.url === "/innocent.gif").length).toBe(2);
    expect(browsers.size).toBeGreaterThanOrEqual(2);
  });
});
