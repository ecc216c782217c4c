// The click-through inside frames. Known truth: a creative whose only exit is a small button inside a frame — a zip
// framed at its ad.size by our slot page, an ad tag that writes its creative into a friendly (same-origin) iframe or
// loads it in a cross-origin one — is clicked on that button (its centre), and the landing page it opens is found;
// the frame's centre (nothing there) was clicked before. A full-area clickable element still wins over a smaller one.
import { create } from "@bufbuild/protobuf";
import { Device, ScanJobSchema, ScanKind, type ScanJob } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickPoint } from "../src/gatherers/frame-layout.ts";
import { createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { sharedBrowserPool } from "./shared-pool.ts";
import { send, startFixtureServer, tagJob } from "./helpers.ts";

/** A 300x250 creative whose only link is an 80x30 button at (200,200) calling window.open(clickTag). */
const buttonAd = (clickTag: string, extra = "") => `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta name="ad.size" content="width=300,height=250"><script>var clickTag = ${JSON.stringify(clickTag)};</script>
<style>html,body{margin:0}#ad{position:relative;width:300px;height:250px;background:#246}
#cta{position:absolute;left:200px;top:200px;width:80px;height:30px;background:#fc0;display:block}</style></head>
<body><div id="ad"${extra}><a id="cta" href="javascript:void(0)" onclick="window.open(clickTag);return false">Go</a></div></body></html>`;

function zipJob(files: Record<string, string>): ScanJob {
  const enc = new TextEncoder();
  return create(ScanJobSchema, {
    jobId: `z-${Math.random().toString(36).slice(2)}`,
    kind: ScanKind.TAG,
    apiVersion: "v3",
    targeting: { device: Device.DESKTOP },
    input: {
      case: "tag",
      value: {
        creative: {
          case: "bundle",
          value: { entry: "index.html", files: Object.entries(files).map(([path, d]) => ({ path, data: enc.encode(d) })), frameSize: { width: 300, height: 250 } },
        },
        captureLandingPage: true,
      },
    },
  });
}

describe("click point across frames (unit)", () => {
  it("the largest candidate inside the box, cut to the box; else the box's centre", () => {
    const box = { x: 10, y: 20, width: 300, height: 250 };
    // A button inside a framed creative vs nothing else: the button's centre.
    expect(clickPoint([{ l: 210, t: 220, r: 290, b: 250 }], box, { x: 0, y: 0 })).toEqual({ x: 250, y: 235 });
    // A full-area clickable beats a small button.
    expect(clickPoint([{ l: 210, t: 220, r: 290, b: 250 }, { l: 10, t: 20, r: 310, b: 270 }], box, { x: 0, y: 0 })).toEqual({ x: 160, y: 145 });
    // Only the part inside the box counts, and the box is in document coordinates (scrolled by 100 px).
    expect(clickPoint([{ l: 0, t: -80, r: 20, b: -70 }], box, { x: 0, y: 100 })).toEqual({ x: 15, y: -75 });
    expect(clickPoint([{ l: 400, t: 400, r: 500, b: 500 }], box, { x: 0, y: 0 })).toEqual({ x: 160, y: 145 });
    expect(clickPoint([], box, { x: 0, y: 0 })).toEqual({ x: 160, y: 145 });
  });
});

describe("click-through into frames in Chromium", () => {
  let pool: BrowserPool;
  let scanner: TagScanner;
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
  beforeAll(async () => {
    pool = sharedBrowserPool(2);
    scanner = createTagScanner({
      pool, artifacts: createMemoryArtifactSink(), location: "usa",
      policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
      timeouts: { renderMs: 12_000, holdMs: 1_200, stepMs: 4_000, landingMs: 6_000 },
    });
    fixture = await startFixtureServer({
      "/landing.html": send("text/html", "<!doctype html><title>Landing</title><h1>Welcome</h1>"),
      "/cta-frame.html": (req, res) => send("text/html", buttonAd(`http://${req.headers.host}/landing.html?from=xo`))(req, res),
    });
  });
  afterAll(async () => {
    await pool?.close();
    await fixture?.close();
  });

  it("a zip framed at its ad.size: the 80x30 button at (200,200) is clicked at its centre and its landing page opens", async () => {
    const url = `${fixture.origin}/landing.html?from=zip`;
    const r = await scanner.scan(zipJob({ "index.html": buttonAd(url) }));
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
    // The slot page puts the 300x250 frame at the viewport's origin: frame and viewport coordinates coincide.
    expect(r.clickPoint).toMatchObject({ x: 240, y: 215, screenshotX: 240, screenshotY: 215, insideScreenshot: true });
    expect(r.landingPage).toMatchObject({ tab: "new_tab", url, title: "Landing", working: true });
  });

  it("a full-area clickable element still wins over the smaller button inside the frame", async () => {
    const url = `${fixture.origin}/landing.html?from=bg`;
    const bg = ` style="cursor:pointer" onclick="if(event.target===this)window.open(${JSON.stringify(url).replace(/"/g, "&quot;")})"`;
    const r = await scanner.scan(zipJob({ "index.html": buttonAd(`${fixture.origin}/landing.html?from=button`, bg) }));
    expect(r.clickPoint).toMatchObject({ x: 150, y: 125 });
    expect(r.landingPage).toMatchObject({ tab: "new_tab", url });
  });

  it("a creative cannot move the click by lying to its own world's DOM methods", async () => {
    const url = `${fixture.origin}/landing.html?from=liar`;
    // Its world says every element fills the frame: our isolated world still reads the button at (200,200).
    const liar = buttonAd(url).replace("</body>", `<script>Element.prototype.getBoundingClientRect = function () { return new DOMRect(0, 0, 300, 250); };
Object.defineProperty(window, "getComputedStyle", { value: function () { return { cursor: "pointer" }; } });</script></body>`);
    const r = await scanner.scan(zipJob({ "index.html": liar }));
    expect(r.clickPoint).toMatchObject({ x: 240, y: 215 });
    expect(r.landingPage).toMatchObject({ tab: "new_tab", url });
  });

  it("a frame with nothing clickable inside still counts as one clickable, larger than a small link beside it", async () => {
    // Handlers a script attached show in no probe: the frame is the click target, as before, not the 20x20 link.
    const tag = `<div style="position:relative;width:300px;height:250px"><iframe id="f" width="300" height="250" frameborder="0" style="border:0;display:block"></iframe>
<a href="${fixture.origin}/landing.html?from=choices" target="_blank" style="position:absolute;right:0;top:0;width:20px;height:20px;background:#fff;display:block"></a></div>
<script>var d = document.getElementById("f").contentDocument; d.open(); d.write('<body style="margin:0"><div style="width:300px;height:250px;background:#246"></div></body>'); d.close();
d.body.addEventListener("click", function () { window.open(${JSON.stringify(`${fixture.origin}/landing.html?from=script`)}); });</script>`;
    const r = await scanner.scan(tagJob(tag, { landing: true }));
    expect(r.clickPoint?.screenshotX).toBeCloseTo(150, 0);
    expect(r.clickPoint?.screenshotY).toBeCloseTo(125, 0);
    expect(r.landingPage).toMatchObject({ tab: "new_tab", url: `${fixture.origin}/landing.html?from=script` });
  });

  it("an ad tag writing its creative into a friendly (same-origin) iframe: the CTA inside is clicked", async () => {
    const url = `${fixture.origin}/landing.html?from=friendly`;
    const tag = `<iframe id="f" width="300" height="250" frameborder="0" scrolling="no" style="border:0;display:block"></iframe>
<script>var d = document.getElementById("f").contentDocument; d.open(); d.write(${JSON.stringify(buttonAd(url)).replace(/<\//g, "<\\/")}); d.close();</script>`;
    const r = await scanner.scan(tagJob(tag, { landing: true }));
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
    expect(r.clickPoint?.screenshotX).toBeCloseTo(240, 0);
    expect(r.clickPoint?.screenshotY).toBeCloseTo(215, 0);
    expect(r.landingPage).toMatchObject({ tab: "new_tab", url, title: "Landing", working: true });
  });

  it("an ad tag loading its creative in a cross-origin iframe: the CTA inside is clicked", async () => {
    const url = `${fixture.origin}/landing.html?from=xo`;
    const tag = `<iframe src="${fixture.origin}/cta-frame.html" width="300" height="250" frameborder="0" scrolling="no" style="border:0;display:block"></iframe>`;
    const r = await scanner.scan(tagJob(tag, { landing: true }));
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
    expect(r.clickPoint?.screenshotX).toBeCloseTo(240, 0);
    expect(r.clickPoint?.screenshotY).toBeCloseTo(215, 0);
    expect(r.landingPage).toMatchObject({ tab: "new_tab", url, title: "Landing", working: true });
  });
});
