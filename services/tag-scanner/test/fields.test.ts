// Report fields are pure functions of artifacts: checked here without a browser.
import { describe, expect, it } from "vitest";
import { blockedByAdblock } from "../src/fields/adblock.ts";
import { declaredSize, hasVisualArtifacts, mobileFriendly, paintedSize } from "../src/fields/dimensions.ts";
import { dominantColor, hasBorder, type Raster } from "../src/fields/image.ts";
import { isPixel } from "../src/fields/is-pixel.ts";
import { loadSize } from "../src/fields/load-size.ts";
import { missingAssets } from "../src/fields/missing-assets.ts";
import { sslCompliance } from "../src/fields/ssl.ts";
import { thirdPartyAdServer } from "../src/fields/third-party-ad-server.ts";
import { frameStalls, idleLateness, measurementConfidence } from "../src/fields/measurement.ts";
import { animationDuration, timeToVisualStart } from "../src/fields/timing.ts";
import { imageSizeFromBytes, type RequestRecord } from "../src/gatherers/network.ts";
import { PIXEL_GIF } from "./helpers.ts";

const req = (over: Partial<RequestRecord>): RequestRecord => ({
  requestId: "1", url: "https://x.test/a", method: "GET", resourceType: "script", frameId: "f", startTs: 10, headers: {},
  encodedBytes: 100, bodyBytes: 80, finished: true, status: 200, ...over,
});

function raster(w: number, h: number, paint: (x: number, y: number) => [number, number, number]): Raster {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set([...paint(x, y), 255], (y * w + x) * 4);
  return { width: w, height: h, data };
}

describe("fields", () => {
  it("declared size from attributes, inline style, ad.size meta", () => {
    expect(declaredSize(`<script>var a=1</script><iframe src="x" width="300" height="250"></iframe>`)).toEqual({ width: 300, height: 250 });
    expect(declaredSize(`<ins class='dcmads' style='display:inline-block;width:160px;height:600px'></ins>`)).toEqual({ width: 160, height: 600 });
    expect(declaredSize(`<meta name="ad.size" content="width=728,height=90"><div style="width:1px;height:1px">`)).toEqual({ width: 728, height: 90 });
    expect(declaredSize(`<p>hello</p>`)).toEqual({ width: 0, height: 0 });
  });

  it("visual artifacts and mobile friendliness", () => {
    expect(hasVisualArtifacts({ width: 300, height: 250 }, { width: 301, height: 251 })).toBe(true);
    expect(hasVisualArtifacts({ width: 300, height: 250 }, { width: 300, height: 250 })).toBe(false);
    expect(hasVisualArtifacts({ width: 0, height: 0 }, { width: 300, height: 250 })).toBe(false);
    expect(paintedSize({ x: 8, y: 8, width: 299.6, height: 250.2 })).toEqual({ width: 300, height: 250 });
    expect(mobileFriendly({ width: 250, height: 250 }, null)).toBe(true);
    // The narrower layout is the probe's raw box; its size is rounded as the painted size is.
    const at = (width: number) => ({ x: 0, y: 0, width, height: 90 });
    expect(mobileFriendly({ width: 728, height: 90 }, { viewportWidth: 320, box: at(728) })).toBe(false);
    expect(mobileFriendly({ width: 1366, height: 90 }, { viewportWidth: 320, box: at(320) })).toBe(true);
    expect(mobileFriendly({ width: 1366, height: 90 }, { viewportWidth: 320, box: at(320.4) })).toBe(true);
    expect(mobileFriendly({ width: 1366, height: 90 }, { viewportWidth: 320, box: null })).toBe(false);
  });

  it("pixels: 1x1 images by their header, tiny images, 204 answers", () => {
    expect(imageSizeFromBytes(PIXEL_GIF)).toEqual({ width: 1, height: 1 });
    expect(isPixel(req({ resourceType: "image", imageSize: { width: 1, height: 1 } }))).toBe(true);
    expect(isPixel(req({ resourceType: "image", imageSize: { width: 300, height: 250 }, bodyBytes: 90 }))).toBe(false);
    expect(isPixel(req({ resourceType: "image", status: 204, bodyBytes: 0 }))).toBe(true);
    expect(isPixel(req({ resourceType: "image", bodyBytes: 43, mimeType: "image/gif" }))).toBe(true);
    expect(isPixel(req({ resourceType: "script", bodyBytes: 10 }))).toBe(false);
    expect(isPixel(req({ resourceType: "image", status: 404, bodyBytes: 10, mimeType: "image/gif" }))).toBe(false);
  });

  it("load phases split at the load event", () => {
    const rs = [req({ startTs: 1, encodedBytes: 100 }), req({ startTs: 2, encodedBytes: 50 }), req({ startTs: 5, encodedBytes: 7 })];
    expect(loadSize(rs, 3, 10)).toEqual({ initialLoad: 160, hostInitiatedSubload: 7, total: 167 });
    expect(loadSize(rs, undefined)).toEqual({ initialLoad: 157, hostInitiatedSubload: 0, total: 157 });
  });

  it("missing assets and ssl", () => {
    const rs = [
      req({ url: "http://a.test/x.js" }), req({ url: "https://b.test/404.png", status: 404, statusText: "Not Found", resourceType: "image" }),
      req({ url: "https://c.test/dns.js", status: undefined, failure: "net::ERR_TUNNEL_CONNECTION_FAILED" }),
      req({ url: "https://d.test/cancel", status: undefined, failure: "net::ERR_ABORTED", canceled: true }),
      req({ url: "https://e.test/404.js", status: 404, statusText: "", failure: "net::ERR_ABORTED", canceled: true }),
    ];
    expect(missingAssets(rs)).toEqual([
      { url: "https://b.test/404.png", status: 404, resourceType: "image", reason: "Not Found" },
      { url: "https://c.test/dns.js", status: 0, resourceType: "script", reason: "net::ERR_TUNNEL_CONNECTION_FAILED" },
      { url: "https://e.test/404.js", status: 404, resourceType: "script", reason: "HTTP 404" },
    ]);
    expect(sslCompliance(rs.slice(0, 3))).toEqual({ compliant: false, insecureUrls: ["http://a.test/x.js"] });
    // Chromium upgraded the creative's http:// pixel and blocked its ws://: insecure as written.
    const upgraded = req({ url: "https://px.test/p.gif", writtenUrl: "http://px.test/p.gif" });
    expect(sslCompliance([upgraded], ["ws://live.test/feed"])).toEqual({ compliant: false, insecureUrls: ["http://px.test/p.gif", "ws://live.test/feed"] });
    expect(sslCompliance([req({ url: "https://ok.test/a.js" })], [])).toEqual({ compliant: true, insecureUrls: [] });
  });

  it("third-party ad servers and ad-block", () => {
    expect(thirdPartyAdServer(["https://cdn.test/a.js", "https://bs.serving-sys.com/Serving/adServer.bs"], "")).toBe("Sizmek");
    expect(thirdPartyAdServer([], `<ins class='dcmads' data-dcm-placement='N1.2/B3'></ins>`)).toBe("Google Campaign Manager 360");
    expect(thirdPartyAdServer(["https://ib.adnxs.com/ut/v3"], "")).toBe("Xandr (AppNexus)");
    expect(thirdPartyAdServer(["https://www.googletagservices.com/dcm/dcmads.js"], "")).toBe("Google Campaign Manager 360");
    expect(thirdPartyAdServer(["https://cdn.test/a.js"], "<div></div>")).toBe("");
    expect(blockedByAdblock([{ url: "https://secure-gl.imrworldwide.com/x.js", resourceType: "script" }], "", "https://creative.cva.invalid/")).toBe(false);
    expect(blockedByAdblock([{ url: "https://securepubads.g.doubleclick.net/tag/js/gpt.js", resourceType: "script" }], "", "https://p.test/")).toBe(true);
    expect(blockedByAdblock([], `<script src="https://ad.doubleclick.net/ddm/adj/N1/B2"></script>`, "https://p.test/")).toBe(true);
  });

  it("border and dominant colour from pixels", () => {
    const framed = raster(300, 250, (x, y) => (x === 0 || y === 0 || x === 299 || y === 249 ? [0, 0, 0] : [255, 255, 255]));
    expect(hasBorder(framed)).toBe(true);
    const solid = raster(300, 250, () => [200, 0, 0]);
    expect(hasBorder(solid)).toBe(false);
    const gradient = raster(300, 250, (x, y) => [x % 256, y % 256, 128]);
    expect(hasBorder(gradient)).toBe(false);
    const framed3x = raster(900, 750, (x, y) => (x < 3 || y < 3 || x >= 897 || y >= 747 ? [0, 0, 255] : [255, 255, 0]));
    expect(hasBorder(framed3x, 3)).toBe(true);
    expect(dominantColor(solid)).toBe("#c80000");
  });

  it("time to visual start and animation duration", () => {
    expect(timeToVisualStart(1000, [1200, 1150], 1300, true)).toBe(150);
    expect(timeToVisualStart(1000, [], 1300, true)).toBe(300);
    expect(timeToVisualStart(1000, [], undefined, false)).toBe(-1);
    expect(animationDuration(1000, [900, 1000, 2000, 3000], false)).toBe(2000);
    expect(animationDuration(1000, [1000, 2000], true)).toBe(-1);
    expect(animationDuration(1000, [], false)).toBe(0);
    // Static: the blank page's frame, then the first paint reaching the screen — late on a starved compositor — is
    // no motion.
    expect(animationDuration(1000, [900, 1023], false)).toBe(0);
    expect(animationDuration(1000, [900, 1766], false)).toBe(0);
    expect(animationDuration(1000, [900, 1020, 1450], false)).toBe(450);
  });

  it("animation duration: a capture that fell behind the page ends the motion where the page scheduled it", () => {
    // CI, 4 scans in flight: a 1 s transition's frames stopped 150 ms into it, the last arriving 834 ms late.
    const changes = [987, 1258, 2158, 2258, 2308];
    expect(animationDuration(1223, changes, false, { captureLagMs: 834, scheduledEnd: 2800 })).toBe(1577);
    // A capture keeping up is the measure, whatever the page scheduled (a keyframe hold moves no pixels).
    expect(animationDuration(1223, changes, false, { captureLagMs: 40, scheduledEnd: 2800 })).toBe(1085);
    // An end the page scheduled before the last change never shortens the motion.
    expect(animationDuration(1223, changes, false, { captureLagMs: 834, scheduledEnd: 2000 })).toBe(1085);
    expect(animationDuration(1223, changes, false, { captureLagMs: 834 })).toBe(1085);
  });

  it("measurement confidence: a capture far behind at the last change, with nothing the page scheduled to cover it", () => {
    const base = { navWallMs: 0, firstPaintWallMs: 150, paints: [150], pixelChanges: [20, 175, 900, 1400], renderEndedAt: 2600, starvation: [] };
    const lagged = measurementConfidence({ ...base, motionTail: { captureLagMs: 800 } });
    expect(lagged.fields).toEqual(["animation_duration"]);
    expect(lagged.reasons).toEqual(["the screen capture ran 0.8 s behind the page when the motion was last seen"]);
    expect(measurementConfidence({ ...base, motionTail: { captureLagMs: 800, scheduledEnd: 1900 } }).confidence).toBe("high");
    expect(measurementConfidence({ ...base, motionTail: { captureLagMs: 60 } }).confidence).toBe("high");
    // A static creative: its one frame's lag is the first-frame check's business, not this one's.
    expect(measurementConfidence({ ...base, pixelChanges: [20, 175], motionTail: { captureLagMs: 800 } }).confidence).toBe("high");
  });

  it("measurement confidence: low, with the size, for each field starvation may have moved", () => {
    const quiet = { navWallMs: 0, firstPaintWallMs: 150, paints: [150], pixelChanges: [20, 175], dclWallMs: 120, renderEndedAt: 600 };
    const samples = (...ms: Array<[number, number]>) => ms.map(([at, v]) => ({ at, ms: v }));
    expect(measurementConfidence({ ...quiet, starvation: samples([250, 12], [500, 30], [1000, 40]) }))
      .toEqual({ confidence: "high", reasons: [], fields: [] });
    // Starved before the first paint: every field counted from navigation is suspect.
    const early = measurementConfidence({ ...quiet, starvation: samples([250, 900], [500, 950], [1000, 960]) });
    expect(early.confidence).toBe("low");
    expect(early.fields.sort()).toEqual(["animation_duration", "dom_content_loaded", "time_to_visual_start"]);
    expect(early.reasons[0]).toBe("the renderer was kept from the CPU for 0.9 s before the first paint");
    // Starved only later, while a long animation ran: only animation_duration.
    const late = measurementConfidence({ ...quiet, renderEndedAt: 8_000, starvation: samples([250, 10], [1000, 20], [5000, 1400], [8000, 1500]) });
    expect(late).toEqual({ confidence: "low", fields: ["animation_duration"], reasons: ["the renderer was kept from the CPU for 1.5 s while the creative rendered"] });
    // The first frame shown 0.8 s after its paint: the compositor was starved.
    const shown = measurementConfidence({ ...quiet, pixelChanges: [20, 950], starvation: [] });
    expect(shown).toEqual({ confidence: "low", fields: ["animation_duration"], reasons: ["the first frame reached the screen 0.8 s after it was painted (the compositor was starved)"] });
  });

  it("measurement confidence: a paint that no captured frame followed marks the motion, a paint the capture showed does not", () => {
    // A clean-clone CI under deliberate overload (css-transition-after-timeout): the headline's first contentful paint
    // at 681 ms, as its 1 s slide began, never reached the screen capture (changes at -10 and 255 ms only).
    const starved = { navWallMs: 0, firstPaintWallMs: 184, paints: [184, 681], pixelChanges: [-10, 255], renderEndedAt: 2_359, starvation: [] };
    expect(measurementConfidence(starved)).toEqual({
      confidence: "low", fields: ["animation_duration"],
      reasons: ["the creative painted at 0.7 s and no frame after it reached the screen capture (the compositor or the capture was starved)"],
    });
    // The same creative on a quiet machine: every paint followed by a frame (the capture's clock a few ms early).
    expect(measurementConfidence({ ...starved, pixelChanges: [-10, 200, 676, 700, 1_700] }).confidence).toBe("high");
    // A paint after the render watch ended is not the render's.
    expect(measurementConfidence({ ...starved, renderEndedAt: 600 }).confidence).toBe("high");
  });

  it("measurement confidence: the page's frames stalled while its main thread was free (a GPU process kept from running)", () => {
    // getMetrics every 500 ms, answered 3 ms after it went out (renderer clock 10 000 ms ahead), the renderer busy 8 ms
    // in each 500 ms; the looks every 200 ms take two frames (~35 ms) — but one, sent at 3 300 ms, took 1 250 ms.
    const answers = Array.from({ length: 14 }, (_, i) => ({ sent: i * 500, t: 10_000 + i * 500 + 3, busy: i * 8 }));
    const waits = [{ from: 2_900, to: 2_935 }, { from: 3_100, to: 3_136 }, { from: 3_300, to: 4_550 }, { from: 4_600, to: 4_634 }];
    const stalls = frameStalls(waits, answers);
    expect(stalls.filter((w) => w.ms >= 250)).toEqual([{ from: 3_300, to: 4_550, ms: 1_250 - 32 - 50 }]);
    const base = { navWallMs: 0, firstPaintWallMs: 150, paints: [150], pixelChanges: [20, 175, 900, 3_600, 4_560], renderEndedAt: 6_000, starvation: [], answers };
    expect(measurementConfidence({ ...base, frameWaits: waits })).toEqual({
      confidence: "low", fields: ["animation_duration"],
      reasons: ["the page's frames stopped for 1.2 s while its main thread was free (the compositor or the GPU process was kept from running)"],
    });
    // The same wait explained by the creative's own long task (1.2 s of TaskDuration around it): not the machine's.
    const busy = answers.map((a, i) => ({ ...a, busy: i * 8 + (i >= 9 ? 1_200 : 0) }));
    expect(measurementConfidence({ ...base, answers: busy, frameWaits: waits }).confidence).toBe("high");
    // Quick looks only: nothing.
    expect(measurementConfidence({ ...base, frameWaits: [waits[0]!, waits[1]!, waits[3]!] }).confidence).toBe("high");
    // A look before the first paint waits for it (render-blocking resources), not for a starved compositor.
    expect(measurementConfidence({ ...base, firstPaintWallMs: 4_600, paints: [4_600], pixelChanges: [20, 4_610, 5_000], frameWaits: waits }).confidence).toBe("high");
  });

  it("measurement confidence: an asset the scanner's own process held back moves the fields after it, with its name and size", () => {
    // First paint at 150, DOMContentLoaded at 120, motion until 3 400 (an SVG image's SMIL, started when it arrived).
    const base = { navWallMs: 0, firstPaintWallMs: 150, paints: [150], pixelChanges: [20, 175, 1_100, 3_400], dclWallMs: 120, renderEndedAt: 6_000, starvation: [] };
    const svg = (heldMs: number, arrivedWallMs = 1_000) => ({ name: "image badge-smil.svg", arrivedWallMs, heldMs });
    // Held briefly (a busy worker's ordinary moment): nothing marked.
    expect(measurementConfidence({ ...base, assets: [svg(120)] })).toEqual({ confidence: "high", reasons: [], fields: [] });
    // Held 0.9 s while it loaded, arriving after the first paint: the motion it started may have started late.
    expect(measurementConfidence({ ...base, assets: [svg(900), { name: "script lib.js", arrivedWallMs: 100, heldMs: 10 }] })).toEqual({
      confidence: "low", fields: ["animation_duration"],
      reasons: ["the creative's image badge-smil.svg (arrived while the creative moved) loaded while the scanner's own network path (request interception, egress proxy) was kept from the CPU for 0.9 s"],
    });
    // Arriving after the last change, it moved nothing.
    expect(measurementConfidence({ ...base, assets: [svg(900, 3_500)] }).confidence).toBe("high");
    // A script held before DOMContentLoaded and the first paint: those two fields, one reason.
    const early = measurementConfidence({ ...base, assets: [{ name: "script lib.js", arrivedWallMs: 100, heldMs: 400 }] });
    // And animation_duration, counted from that first paint, when the creative moved after it.
    expect(early.fields.sort()).toEqual(["animation_duration", "dom_content_loaded", "time_to_visual_start"]);
    const still = measurementConfidence({ ...base, pixelChanges: [20, 150], assets: [{ name: "script lib.js", arrivedWallMs: 100, heldMs: 400 }] });
    expect(still.fields.sort()).toEqual(["dom_content_loaded", "time_to_visual_start"]);
    expect(early.reasons).toEqual(["the creative's script lib.js (arrived before the first paint) loaded while the scanner's own network path (request interception, egress proxy) was kept from the CPU for 0.4 s"]);
  });

  it("measurement confidence: the renderer answering late with no task of its own to explain it", () => {
    // A natural reading (css-iterations-3-stopped-early at load ~25, 2 cores, truth ~2 000): 2 993 unmarked, its
    // TaskDuration − ThreadTime 99 ms in all. getMetrics samples as [sent (local ms), Timestamp (renderer ms), busy]:
    // the one sent at 2 305 was handled 1 135 ms later than the clocks' offset with 10 ms of the renderer's tasks.
    const answers = ([[-70, 528, 0], [42, 591, 19], [445, 979, 67], [710, 1250, 102], [1225, 1927, 118], [1522, 2567, 121],
      [1783, 2567, 121], [2305, 3974, 131], [2806, 3974, 132], [3310, 3975, 132], [3819, 4355, 160], [4196, 5205, 170]] as const)
      .map(([sent, t, busy]) => ({ sent, t, busy }));
    const worst = idleLateness(answers).reduce((w, x) => (x.ms > w.ms ? x : w));
    expect(worst).toEqual({ from: 2305, to: 3440, ms: 1125 });
    const base = { navWallMs: -100, firstPaintWallMs: 83, paints: [83], pixelChanges: [-25, 109, 2093], renderEndedAt: 4128, starvation: [] };
    expect(measurementConfidence({ ...base, answers })).toEqual({
      confidence: "low", fields: ["animation_duration"],
      reasons: ["the renderer answered the scanner 1.1 s late while the creative rendered with no work of its own to explain it (the browser or the renderer was kept from running)"],
    });
    // The same waits behind the creative's own long task (its main thread busy from renderer ms 1 927 to 3 974, so its
    // TaskDuration grew by as much): the creative's, not the machine's.
    const busy = answers.map((a) => ({ ...a, busy: a.busy + Math.max(0, Math.min(a.t, 3_974) - 1_927) }));
    expect(measurementConfidence({ ...base, answers: busy }).confidence).toBe("high");
    // The same wait after the render ended decided nothing.
    expect(measurementConfidence({ ...base, renderEndedAt: 1_500, answers }).confidence).toBe("high");
    // Before the first paint: time_to_visual_start and DOMContentLoaded too.
    const early = measurementConfidence({ ...base, firstPaintWallMs: 3_500, paints: [3_500], dclWallMs: 3_450, pixelChanges: [-25, 3_510], answers });
    expect(early.fields.sort()).toEqual(["animation_duration", "dom_content_loaded", "time_to_visual_start"]);
    expect(early.reasons).toEqual(["the renderer answered the scanner 1.1 s late before the first paint with no work of its own to explain it (the browser or the renderer was kept from running)"]);
    // A quiet machine's answers (a real scan, load ~9): nothing. Waits of 0–70 ms while the page loaded.
    const quiet = ([[-5, 117, 1], [82, 268, 67], [344, 472, 76], [604, 730, 88], [860, 1008, 95], [1158, 1281, 105],
      [1459, 1583, 111], [1778, 1899, 118], [2366, 2494, 125], [2924, 3067, 138], [3448, 3570, 155], [3828, 3992, 169]] as const)
      .map(([sent, t, b]) => ({ sent, t, busy: b }));
    expect(Math.max(...idleLateness(quiet).map((x) => x.ms))).toBeLessThan(100);
    expect(measurementConfidence({ ...base, answers: quiet }).confidence).toBe("high");
  });

  it("measurement confidence: a click-through that gave up at its bound while the scanner was starved marks landing_page", () => {
    const base = { navWallMs: 0, firstPaintWallMs: 150, paints: [150], pixelChanges: [20, 175], dclWallMs: 120, renderEndedAt: 600, starvation: [] };
    // Gave up, but the scanner ran freely meanwhile: the landing page itself was slow or broken — a finding, not a doubt.
    expect(measurementConfidence({ ...base, landingHeldMs: 40 })).toEqual({ confidence: "high", reasons: [], fields: [] });
    expect(measurementConfidence({ ...base, landingHeldMs: 2_300 })).toEqual({
      confidence: "low", fields: ["landing_page"],
      reasons: ["the landing page had not answered when its wait ran out, while the scanner's own network path was kept from the CPU for 2.3 s"],
    });
  });
});
