import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBrowserPool, createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { tagJob } from "./helpers.ts";

// Issue 21 §4 in a scan: a creative that keeps its main thread ~90 % busy is unloaded by Chrome for its CPU (over 15 s
// of CPU in any 30 s window is "CpuPeakLimit"; over 60 s in all "CpuTotalLimit"). Busy for ~17 s of a core on
// purpose, so in the `load` project, alone.
let pool: BrowserPool;
let scanner: TagScanner;
beforeAll(async () => {
  pool = createBrowserPool({ browsers: 1, slots: 2 });
  scanner = createTagScanner({
    pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy(["127.0.0.0/8"]),
    timeouts: { renderMs: 6_000, stepMs: 4_000, landingMs: 6_000 }, heavyAd: true,
  });
  // As a running worker: the browser started and a page prepared (a cold start on a loaded machine took the 6 s render).
  await scanner.warmUp();
}, 120_000);
afterAll(async () => {
  await pool?.close();
});

describe("Chrome's Heavy Ad Intervention in a scan, CPU", () => {
  it("a creative busy 90 ms of every 100 ms is unloaded for its CPU", async () => {
    const r = await scanner.scan(tagJob(`<div style="width:300px;height:250px;background:#753"></div>
<script>setInterval(() => { const e = performance.now() + 90; while (performance.now() < e) {} }, 100);</script>`));
    console.log(`heavy_ad: ${JSON.stringify(r.heavyAd)}`);
    expect(r.heavyAd, r.heavyAd?.detail).toMatchObject({ checked: true, intervened: true });
    expect(["cpu_peak", "cpu_total"]).toContain(r.heavyAd!.reason);
    expect(r.heavyAd!.detail).toMatch(/of CPU .*Chrome unloaded the ad frame/);
  }, 180_000);
});
