import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publisherPage, startHeavyAdBrowser, type HeavyAdBrowser } from "./heavy-ad-browser.ts";

// Issue 21 §4: a 16 s CPU burn in a frame Chrome tags as an ad is unloaded (Chrome: > 15 s of CPU in any 30 s window
// is "CpuPeakLimit"). 16 s of a busy core on purpose, so in the `load` project, alone.
let chrome: HeavyAdBrowser;
beforeAll(async () => {
  chrome = await startHeavyAdBrowser();
}, 60_000);
afterAll(async () => {
  await chrome?.close();
});

describe("Chrome's Heavy Ad Intervention, CPU", () => {
  it("a 16 s busy task in the ad frame is unloaded for its CPU", async () => {
    const { page, outcomes, adFrame } = await publisherPage(chrome);
    const burn = await adFrame("burn=16000");
    await expect.poll(() => outcomes.find((o) => o.frameId === burn), { timeout: 120_000, interval: 500 }).toBeDefined();
    const o = outcomes.find((x) => x.frameId === burn)!;
    console.log(`16 s burn: Chrome intervened, reason ${o.reason}`);
    expect(o.intervened).toBe(true);
    expect(["cpu_peak", "cpu_total"]).toContain(o.reason);
    await page.close();
  }, 180_000);
});
