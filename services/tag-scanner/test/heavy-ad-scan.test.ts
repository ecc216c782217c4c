// Issue 21 §4 in a scan: heavy_ad from Chrome's own intervention on the creative in an ad frame (heavy-ad/run.ts),
// run only when the first run came within half of one of Chrome's limits (heavy-ad/trigger.ts).
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { sharedBrowserPool } from "./shared-pool.ts";
import { startFixtureServer, tagJob } from "./helpers.ts";

const MB = 1024 * 1024;
let pool: BrowserPool;
let scanner: TagScanner;
let fixture: Awaited<ReturnType<typeof startFixtureServer>>;

beforeAll(async () => {
  pool = sharedBrowserPool(2);
  scanner = createTagScanner({
    pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy(["127.0.0.0/8"]),
    timeouts: { renderMs: 12_000, stepMs: 4_000, landingMs: 6_000 }, heavyAd: true,
  });
  fixture = await startFixtureServer({
    "/bytes": (req, res) => {
      const n = Number(new URL(req.url ?? "/", "http://x").searchParams.get("n"));
      res.writeHead(200, { "content-type": "application/octet-stream", "cache-control": "no-store", "access-control-allow-origin": "*" });
      res.end(Buffer.alloc(n, 7));
    },
  });
}, 60_000);
afterAll(async () => {
  await fixture?.close();
  await pool?.close();
});

/** A 300x250 that downloads `n` bytes once, as a creative fetching its video would. */
const downloads = (n: number) => `<div style="width:300px;height:250px;background:#357"></div>
<script>fetch("${fixture.origin}/bytes?n=${n}&r=" + Math.random()).then((r) => r.arrayBuffer()).then((b) => console.log("got " + b.byteLength));</script>`;

describe("heavy_ad", () => {
  it("a 5 MB download is unloaded by Chrome for network", async () => {
    const r = await scanner.scan(tagJob(downloads(5 * MB)));
    expect(r.heavyAd, r.heavyAd?.detail).toMatchObject({ checked: true, intervened: true, reason: "network" });
    expect(r.heavyAd!.detail).toMatch(/loaded 5\.0 MB .*Chrome unloaded the ad frame/);
  }, 90_000);

  it("a 3 MB download is run in the ad frame and not unloaded", async () => {
    const r = await scanner.scan(tagJob(downloads(3 * MB)));
    expect(r.heavyAd, r.heavyAd?.detail).toMatchObject({ checked: true, intervened: false, reason: "" });
    expect(r.heavyAd!.watchedMs).toBeGreaterThan(0);
    expect(r.heavyAd!.detail).toMatch(/Chrome did not intervene/);
  }, 90_000);

  it("a static banner far below every limit renders once", async () => {
    const r = await scanner.scan(tagJob(`<div style="width:300px;height:250px;background:#357"></div>`));
    expect(r.heavyAd, r.heavyAd?.detail).toMatchObject({ checked: false, intervened: false, reason: "", watchedMs: 0 });
    expect(r.heavyAd!.detail).toMatch(/^not run in an ad frame: the first run stayed below half of every limit/);
  }, 90_000);

  it("v2 reports carry none", async () => {
    const r = await scanner.scan(tagJob(downloads(5 * MB), { apiVersion: "v2" }));
    expect(r.heavyAd).toBeUndefined();
  }, 90_000);
});
