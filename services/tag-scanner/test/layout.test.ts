// The layout probe in a real Chromium, evaluated in an isolated world as the scanner does: the creative's box is what
// a viewer sees (no trackers, nothing hidden, outlines and shadows included), whatever the page did to its own DOM API.
import { PNG } from "pngjs";
import puppeteer, { type Browser, type CDPSession, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LAYOUT_SCRIPT, type LayoutArtifact } from "../src/gatherers/layout.ts";
import { captureBeyondViewport, screenshotClip } from "../src/gatherers/measure.ts";
import { PIXEL_GIF } from "./helpers.ts";

const PIXEL = `data:image/gif;base64,${PIXEL_GIF.toString("base64")}`;

function pngUrl(w: number, h: number, rgb: [number, number, number]): string {
  const png = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) png.data.set([...rgb, 255], i * 4);
  return `data:image/png;base64,${PNG.sync.write(png).toString("base64")}`;
}
const BANNER = pngUrl(300, 250, [30, 90, 200]);
const ICON = pngUrl(15, 15, [0, 170, 230]);

const AD = `<div style="width:300px;height:250px;background:#393"></div>`;
// body margin 20px: the box is at (20, 20), so growth to the left/top is not hidden by the clamp at 0.
const AT = { x: 20, y: 20, width: 300, height: 250 };

let browser: Browser;
let page: Page;
let client: CDPSession;

beforeAll(async () => {
  browser = await puppeteer.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new", "--disable-gpu"] });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  client = await page.createCDPSession();
});
afterAll(async () => {
  await browser?.close();
});

async function probeFrame(frameId: string): Promise<LayoutArtifact> {
  const { executionContextId } = await client.send("Page.createIsolatedWorld", { frameId, worldName: "cva-probe" });
  const r = await client.send("Runtime.evaluate", { expression: LAYOUT_SCRIPT, contextId: executionContextId, returnByValue: true });
  if (r.exceptionDetails) throw new Error(`probe threw: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
  return r.result.value as LayoutArtifact;
}

async function probe(html: string): Promise<LayoutArtifact> {
  await page.setContent(`<!doctype html><html><head><style>body{margin:20px}</style></head><body>${html}</body></html>`, { waitUntil: "load" });
  const { frameTree } = await client.send("Page.getFrameTree");
  return probeFrame(frameTree.frame.id);
}

const boxOf = async (html: string) => (await probe(html)).box;

describe("layout probe", () => {
  it("a plain 300x250, and an image banner", async () => {
    const r = await probe(AD);
    expect(r.box).toEqual(AT);
    expect(r.ownBox).toEqual(AT);
    expect(r.scroll).toEqual({ x: 0, y: 0 });
    expect(r.viewport).toEqual({ width: 1280, height: 800 });
    expect(r.click).toEqual({ x: 170, y: 145 });
    expect(await boxOf(`<img src="${BANNER}" style="display:block">`)).toEqual(AT);
  });

  it("tracking pixels add nothing, whether inline (line box), block, sized or not", async () => {
    expect(await boxOf(`${AD}<img src="${PIXEL}" width="1" height="1">`)).toEqual(AT);
    expect(await boxOf(`${AD}<img src="${PIXEL}" width="1" height="1" style="display:block">`)).toEqual(AT);
    expect(await boxOf(`${AD}<img src="${PIXEL}">`)).toEqual(AT);
    expect(await boxOf(`${AD}<img src="${PIXEL}" style="vertical-align:bottom"><img src="${PIXEL}" border="0" alt="">`)).toEqual(AT);
    expect(await boxOf(`<a href="https://x.test/"><img src="${BANNER}" style="display:block"></a><a href="https://t.test/"><img src="${PIXEL}" width="1" height="1"></a>`)).toEqual(AT);
    // A 1x1 image stretched by the markup is still a pixel, a 2x2 painted element is too small to be seen.
    expect(await boxOf(`${AD}<img src="${PIXEL}" width="300" height="20" style="display:block">`)).toEqual(AT);
    expect(await boxOf(`${AD}<div style="width:2px;height:2px;background:red"></div>`)).toEqual(AT);
    // An iframe pixel too.
    expect(await boxOf(`${AD}<iframe width="1" height="1" frameborder="0" src="about:blank"></iframe>`)).toEqual(AT);
  });

  it("hidden, transparent, off-screen and visually-hidden elements add nothing", async () => {
    const red = "width:728px;height:90px;background:red";
    const hidden = [
      `<div style="display:none;${red}"></div>`,
      `<div style="visibility:hidden;${red}"></div>`,
      `<div style="opacity:0;${red}"></div>`,
      `<div style="opacity:0"><p style="${red}">hi</p></div>`,
      `<div style="position:absolute;left:-9999px;top:0;${red}">off-screen text</div>`,
      `<div style="position:absolute;top:-9999px;${red}"></div>`,
      `<div style="position:fixed;left:2000px;top:0;${red}"></div>`,
      `<span style="position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0">Advertisement: a long label</span>`,
      `<div style="position:absolute;top:400px;left:0;clip:rect(0 0 0 0);${red}">x</div>`,
      `<div style="position:absolute;top:400px;left:0;clip-path:inset(50%);${red}">x</div>`,
      `<div style="width:0;height:0;overflow:hidden"><div style="${red}">inside</div></div>`,
      `<div style="height:0;overflow:hidden"><div style="${red}">inside</div></div>`,
      `<p style="color:transparent">invisible text</p>`,
      `<p style="font-size:0">zero text</p>`,
    ];
    for (const h of hidden) expect(await boxOf(`${AD}${h}`), h).toEqual(AT);
  });

  it("an AdChoices icon inside the top-right corner does not grow the box", async () => {
    const html = `<div style="position:relative;width:300px;height:250px;background:#393">
      <a href="https://adchoices.test/" style="position:absolute;top:0;right:0;width:15px;height:15px"><img src="${ICON}" width="15" height="15" style="display:block"></a></div>`;
    expect(await boxOf(html)).toEqual(AT);
  });

  it("outlines and outer shadows count where they paint; inset and transparent ones do not grow the box", async () => {
    const ad = (css: string) => `<div style="width:300px;height:250px;background:#393;${css}"></div>`;
    expect(await boxOf(ad("outline:2px solid #000"))).toEqual({ x: 18, y: 18, width: 304, height: 254 });
    expect(await boxOf(ad("outline:2px solid #000;outline-offset:3px"))).toEqual({ x: 15, y: 15, width: 310, height: 260 });
    expect(await boxOf(ad("outline:2px solid #000;outline-offset:-2px"))).toEqual(AT);
    expect(await boxOf(ad("outline:2px solid transparent"))).toEqual(AT);
    expect(await boxOf(ad("outline-width:5px"))).toEqual(AT); // style none: no outline
    expect(await boxOf(ad("box-shadow:0 0 0 2px #000"))).toEqual({ x: 18, y: 18, width: 304, height: 254 });
    expect(await boxOf(ad("box-shadow:inset 0 0 0 2px #000"))).toEqual(AT);
    expect(await boxOf(ad("box-shadow:0 0 0 2px rgba(0,0,0,0)"))).toEqual(AT);
    // Offsets and blur: left 8-4, right 8+4, top 8-6, bottom 8+6.
    expect(await boxOf(ad("box-shadow:4px 6px 8px 0 rgba(0,0,0,.5)"))).toEqual({ x: 16, y: 18, width: 316, height: 266 });
    // The widest of several shadows on each side; an inset one among them adds nothing.
    expect(await boxOf(ad("box-shadow:inset 0 0 9px #000, 0 0 0 1px #fff, 0 3px 0 0 #000"))).toEqual({ x: 19, y: 19, width: 302, height: 254 });
    // A container without a background of its own is drawn only by its outline.
    expect(await boxOf(`<div style="width:300px;height:250px;outline:2px solid #000"><p style="margin:0">text</p></div>`))
      .toEqual({ x: 18, y: 18, width: 304, height: 254 });
  });

  it("clipping follows the browser: overflow of the real ancestors, clip-path", async () => {
    // The shadow is clipped by the ad's own overflow:hidden container.
    expect(await boxOf(`<div style="overflow:hidden;width:300px;height:250px"><div style="width:300px;height:250px;background:#393;box-shadow:0 0 0 5px red"></div></div>`)).toEqual(AT);
    // An absolute child escapes an overflow:hidden ancestor that is not its containing block ...
    const escaping = (pos: string) => `<div style="overflow:hidden;width:300px;height:250px;background:#393;${pos}">
      <div style="position:absolute;left:20px;top:270px;width:300px;height:50px;background:red"></div></div>`;
    expect(await boxOf(escaping(""))).toEqual({ x: 20, y: 20, width: 300, height: 300 });
    // ... and is clipped when it is.
    expect(await boxOf(escaping("position:relative"))).toEqual(AT);
    expect(await boxOf(escaping("transform:translateZ(0)"))).toEqual(AT);
    // clip-path cuts what the element and its descendants paint.
    expect(await boxOf(`<div style="clip-path:inset(0 0 50px 0)"><div style="width:300px;height:300px;background:#393"></div></div>`)).toEqual(AT);
  });

  it("text and open shadow DOM paint", async () => {
    const t = await boxOf(`<p style="margin:0;font:20px/30px sans-serif">Buy now</p>`);
    expect(t).not.toBeNull();
    expect(t!.x).toBe(20);
    expect(t!.height).toBeGreaterThan(10);
    expect(t!.height).toBeLessThanOrEqual(30);
    const shadow = `<div id="host"></div><script>document.getElementById("host").attachShadow({ mode: "open" }).innerHTML =
      '<div style="width:300px;height:250px;background:#393"></div>';</script>`;
    expect(await boxOf(shadow)).toEqual(AT);
    // Text slotted into a shadow tree, and text in a display:contents element, still paints.
    const slotted = await boxOf(`<div id="host">Slotted text</div><script>document.getElementById("host").attachShadow({ mode: "open" }).innerHTML =
      '<div style="font:20px/30px sans-serif"><slot></slot></div>';</script>`);
    expect(slotted?.height).toBeGreaterThan(10);
    expect((await boxOf(`<div style="display:contents">contents text</div>`))?.height).toBeGreaterThan(10);
  });

  it("the truth even when the page lies about its DOM in its main world, or shadows it with named elements", async () => {
    const liar = `<script>
      Element.prototype.getBoundingClientRect = function () { return { left: 0, top: 0, right: 999, bottom: 999, width: 999, height: 999, x: 0, y: 0 }; };
      Document.prototype.querySelectorAll = function () { return []; };
      document.querySelectorAll = function () { return []; };
      window.getComputedStyle = function () { return { overflowX: "visible", overflowY: "visible", backgroundColor: "red", backgroundImage: "none", boxShadow: "none" }; };
      Element.prototype.checkVisibility = function () { return true; };
      </script>
      <form name="body" style="display:none"><input name="getBoundingClientRect"><input name="parentElement"><input name="tagName"></form>
      <img name="querySelector" src="${PIXEL}" width="1" height="1" style="position:absolute">
      ${AD}<div style="display:none;width:728px;height:90px;background:red"></div>`;
    expect(await boxOf(liar)).toEqual(AT);
    // The lies are in force in the page's own world, and document.body is the form there and in every world.
    expect(await page.evaluate(() => [document.documentElement.getBoundingClientRect().width, document.querySelectorAll("div").length, document.body.nodeName]))
      .toEqual([999, 0, "FORM"]);
  });

  it("ownBox leaves frame elements out (their content is measured in their own document); box keeps them", async () => {
    const frame = `<iframe width="300" height="250" frameborder="0" style="display:block" srcdoc="<body style='margin:0'><div style='width:300px;height:250px;background:red'></div></body>"></iframe>`;
    let r = await probe(frame);
    expect(r.box).toEqual(AT);
    expect(r.ownBox).toBeNull();
    // The frame's document, probed in its own isolated world: what it paints, in its own coordinates.
    const { frameTree } = await client.send("Page.getFrameTree");
    const child = await probeFrame(frameTree.childFrames![0]!.frame.id);
    expect(child.box).toEqual({ x: 0, y: 0, width: 300, height: 250 });
    expect(child.ownBox).toEqual(child.box);

    r = await probe(`${frame}<div style="width:300px;height:50px;background:#393"></div>`);
    expect(r.box).toEqual({ x: 20, y: 20, width: 300, height: 300 });
    expect(r.ownBox).toEqual({ x: 20, y: 270, width: 300, height: 50 });

    // What the parent document paints for a frame element — here the default 2px inset border — stays in ownBox.
    r = await probe(`<iframe style="display:block" src="about:blank"></iframe>`);
    expect(r.box).toEqual({ x: 20, y: 20, width: 304, height: 154 });
    expect(r.ownBox).toEqual(r.box);
  });

  it("boxes are in document coordinates; scroll says how far the viewport is scrolled", async () => {
    await probe(`<div style="height:1000px"></div>${AD}<div style="height:2000px"></div>`);
    await page.evaluate(() => window.scrollTo(0, 600));
    const { frameTree } = await client.send("Page.getFrameTree");
    const r = await probeFrame(frameTree.frame.id);
    expect(r.scroll).toEqual({ x: 0, y: 600 });
    expect(r.box).toEqual({ x: 20, y: 1020, width: 300, height: 250 });
    expect(r.click).toEqual({ x: 170, y: 1145 - 600 });
  });

  it("the screenshot reaches beyond the viewport only when the box does: such a capture fires resize in the creative", async () => {
    const html = `<div style="height:1000px"></div>${AD}<div style="height:2000px"></div><script>window.resizes = 0; addEventListener("resize", () => resizes++);</script>`;
    await probe(html);
    await page.evaluate(() => window.scrollTo(0, 600));
    const { frameTree } = await client.send("Page.getFrameTree");
    const r = await probeFrame(frameTree.frame.id);
    const clip = screenshotClip(r.box, { width: 1280, height: 800, deviceScaleFactor: 1 });
    expect(captureBeyondViewport(clip, r)).toBe(false);
    const resizes = () => page.evaluate(() => (window as unknown as { resizes: number }).resizes);
    const shot = async (beyond: boolean) => (await client.send("Page.captureScreenshot", { format: "png", clip, captureBeyondViewport: beyond })).data;
    // The same pixels from the viewport as from a capture beyond it (the clip is in document coordinates both ways),
    // and no resize event: the one the creative gets from the other is what the choice avoids.
    const inside = await shot(false);
    expect(await resizes()).toBe(0);
    expect(inside).toBe(await shot(true));
    expect(await resizes()).toBe(1);
    const png = PNG.sync.read(Buffer.from(inside, "base64"));
    expect([png.width, png.height, ...png.data.subarray(0, 3)]).toEqual([300, 250, 0x33, 0x99, 0x33]);
    // Past the viewport's bottom, scrolled back to the top, left of the document, or without a layout: beyond it.
    expect(captureBeyondViewport(clip, { ...r, scroll: { x: 0, y: 0 } })).toBe(true);
    expect(captureBeyondViewport({ ...clip, x: -5 }, r)).toBe(true);
    expect(captureBeyondViewport({ ...clip, height: 600 }, r)).toBe(true);
    expect(captureBeyondViewport(clip, undefined)).toBe(true);
  });

  it("ad.size meta", async () => {
    expect((await probe(`<meta name="ad.size" content="width=728,height=90">${AD}`)).adSizeMeta).toEqual({ width: 728, height: 90 });
  });
});
