import { Measurement_Confidence } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { sharedBrowserPool } from "./shared-pool.ts";
import { send, startFixtureServer, tagJob } from "./helpers.ts";

// The film strip and the click point from a real scan (issue 26): a 2 s slide inside a link, clicked through.
// Tolerances, not timing windows: frames are wherever the compositor drew them on a loaded machine.

let pool: BrowserPool;
let scanner: TagScanner;
let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
const artifacts = createMemoryArtifactSink();

beforeAll(async () => {
  pool = sharedBrowserPool(1);
  scanner = createTagScanner({
    pool, artifacts, location: "nld", policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
    timeouts: { renderMs: 12_000, holdMs: 1_200, stepMs: 4_000, landingMs: 6_000 },
  });
  fixture = await startFixtureServer({ "/landing.html": send("text/html", "<!doctype html><title>Landing</title><h1>Landing</h1>") });
});
afterAll(async () => {
  await fixture?.close();
  await pool?.close();
});

describe("film strip and click point in a real scan", () => {
  it("a 2 s slide: frames from first paint to its end, in time order, stored as JPEG; the click at the link's centre", async () => {
    const html = `<a href="${fixture.origin}/landing.html" target="_blank"><div style="width:300px;height:250px;background:#eee;overflow:hidden">
<style>@keyframes slide { from { transform: translateX(0) } to { transform: translateX(200px) } } #b { width: 100px; height: 100px; background: #0a0; animation: slide 2s linear forwards; }</style>
<div id="b"></div></div></a>`;
    const r = await scanner.scan(tagJob(html, { landing: true }));
    const times = r.filmStrip.map((f) => Number(f.timeMs));
    expect(r.filmStrip.length).toBeGreaterThanOrEqual(3);
    expect(r.filmStrip.length).toBeLessThanOrEqual(8);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // The first frame is the first paint (the blank page before it is not kept) and the last the slide's end, about 2 s
    // later. A starved compositor draws nothing for a while, so frames of the slide are missing: the scan says so
    // (measurement confidence low, animation_duration among the fields moved), and the strip then only has to cover
    // part of the motion.
    const starved = r.measurement?.confidence === Measurement_Confidence.LOW && r.measurement.lowConfidenceFields.includes("animation_duration");
    expect(times[times.length - 1]! - times[0]!).toBeGreaterThanOrEqual(starved ? 500 : 1_500);
    for (const f of r.filmStrip) {
      const stored = artifacts.get(f.image!.id);
      expect(stored?.mimeType).toBe("image/jpeg");
      expect(stored?.data[0]).toBe(0xff);
      expect(Number(f.image!.bytes)).toBe(stored!.data.length);
    }
    expect(r.landingPage?.tab).toBe("new_tab");
    expect(r.clickPoint).toBeDefined();
    expect(r.clickPoint!.insideScreenshot).toBe(true);
    // The link wraps the 300x250 box: its centre.
    expect(Math.abs(r.clickPoint!.screenshotX - 150)).toBeLessThanOrEqual(2);
    expect(Math.abs(r.clickPoint!.screenshotY - 125)).toBeLessThanOrEqual(2);
  }, 120_000);

  it("without a click-through there is no click point; a still creative has one frame", async () => {
    const r = await scanner.scan(tagJob(`<div style="width:300px;height:250px;background:#36c"></div>`));
    expect(r.clickPoint).toBeUndefined();
    // A creative that does not move: one frame, its own (the blank page before it drew is not kept).
    expect(r.filmStrip.length).toBe(1);
  }, 120_000);
});
