// MRAID creatives get the container an in-app SDK gives them (src/mraid-host.ts): they render, click through and are
// measured like any banner, and the container's mraid.js is no request of theirs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describeWithCorpus } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isMraidScript } from "../src/mraid-host.ts";
import type { BrowserPool, TagScanner } from "../src/index.ts";
import { bundleJob, createTestScanner, PIXEL_GIF, send, startFixtureServer, tagJob } from "./helpers.ts";
import { sharedBrowserPool } from "./shared-pool.ts";

let pool: BrowserPool;
let scanner: TagScanner;
let fixture: Awaited<ReturnType<typeof startFixtureServer>>;

beforeAll(async () => {
  ({ pool, scanner } = createTestScanner(12_000, sharedBrowserPool(2)));
  fixture = await startFixtureServer({
    "/seen": send("image/gif", PIXEL_GIF),
    "/landing": send("text/html; charset=utf-8", "<title>Landing</title><p>landing</p>"),
  });
});
afterAll(async () => {
  await fixture?.close();
  await pool?.close();
});

const seen = (prefix: string) => fixture.seen.filter((s) => s.url.startsWith(prefix)).map((s) => decodeURIComponent(s.url));

describe("MRAID container", () => {
  it("an in-app banner waiting for ready renders, and mraid.open is its click-through", async () => {
    const html = `<script src="mraid.js"></script>
<div id="ad" onclick="mraid.open('${fixture.origin}/landing')" style="display:none;width:320px;height:50px;background:#1d3557;color:#fff;font:bold 18px/50px Arial">Tap to shop</div>
<script>
function show() {
  document.getElementById("ad").style.display = "block";
  new Image().src = "${fixture.origin}/seen?mraid=" + [mraid.getVersion(), mraid.getState(), mraid.isViewable(), mraid.getPlacementType(), window.MRAID_ENV && MRAID_ENV.version].join(",");
}
if (mraid.getState() === "loading") mraid.addEventListener("ready", show); else show();
</script>`;
    const r = await scanner.scan(tagJob(html, { landing: true }));
    expect(seen("/seen?mraid=")).toEqual(["/seen?mraid=3.0,default,true,inline,3.0"]);
    expect(r.creativeRendered).toBe(true);
    expect(r.dimensions).toMatchObject({ width: 320, height: 50 });
    expect(r.console?.errors).toEqual([]);
    expect(r.missingAssets).toEqual([]);
    // The SDK's file is no request of the creative's: not in the network list, not in its weight.
    expect(r.network!.responses.some((x) => isMraidScript(x.url))).toBe(false);
    expect(r.landingPage).toMatchObject({ tab: "new_tab", url: `${fixture.origin}/landing`, title: "Landing", working: true });
  });

  it("state machine and events as MRAID 3.0 defines them: expand, close twice, resize needs its properties", async () => {
    const html = `<script src="https://cdn.sdk.example/v3/mraid.js"></script>
<div style="width:300px;height:250px;background:#2a9d8f"></div>
<script>
var log = [];
["stateChange", "sizeChange", "viewableChange", "error"].forEach(function (e) {
  mraid.addEventListener(e, function (a, b) { log.push(e + ":" + a + (b !== undefined ? ":" + b : "")); });
});
mraid.addEventListener("ready", function () {
  log.push("ready:" + mraid.getState());
  mraid.resize();
  mraid.setExpandProperties({ width: 320, height: 480 });
  mraid.expand();
  log.push("props:" + JSON.stringify(mraid.getExpandProperties()));
  mraid.close();
  mraid.close();
  log.push("supports:" + ["sms", "tel", "inlineVideo"].map(mraid.supports).join(","));
  new Image().src = "${fixture.origin}/seen?log=" + encodeURIComponent(log.join("|"));
});
</script>`;
    await scanner.scan(tagJob(html));
    const [line] = seen("/seen?log=");
    expect(line).toBeDefined();
    const log = line!.slice("/seen?log=".length).split("|");
    expect(log.slice(0, 3)).toEqual(["stateChange:default", "ready:default", "error:setResizeProperties must be called before resize:resize"]);
    const expanded = log.indexOf("stateChange:expanded");
    expect(expanded).toBeGreaterThan(0);
    expect(log[expanded + 1]).toMatch(/^sizeChange:\d+:\d+$/);
    expect(log).toContain('props:{"width":320,"height":480,"useCustomClose":false,"isModal":true}');
    const tail = log.slice(log.indexOf("stateChange:expanded") + 2);
    expect(tail.filter((e) => e.startsWith("stateChange:"))).toEqual(["stateChange:default", "stateChange:hidden"]);
    expect(log.at(-1)).toBe("supports:false,false,true");
  });

  it("MRAID_ENV is there before the ad's markup runs, as MRAID 3.0 asks, and only for creatives written for MRAID", async () => {
    await scanner.scan(tagJob(`<script>new Image().src = "${fixture.origin}/seen?env=" + (typeof MRAID_ENV === "object" ? MRAID_ENV.version : "none");</script>
<script src="mraid.js"></script><div style="width:320px;height:50px;background:#e63946"></div>`));
    expect(seen("/seen?env=")).toEqual(["/seen?env=3.0"]);
    // A universal web tag that only tests for MRAID (and does not load mraid.js) keeps the page a browser gives it.
    await scanner.scan(tagJob(`<script>new Image().src = "${fixture.origin}/seen?web=" + typeof window.MRAID_ENV + "," + typeof window.mraid;</script>
<div style="width:300px;height:250px;background:#457b9d"></div>`));
    expect(seen("/seen?web=")).toEqual(["/seen?web=undefined,undefined"]);
  });

  it("a bundle whose script loads mraid.js gets the container too", async () => {
    const js = `var s = document.createElement("script"); s.src = "mraid.js"; s.onload = function () {
  mraid.addEventListener("ready", function () { document.getElementById("ad").style.display = "block"; });
}; document.head.appendChild(s);`;
    const r = await scanner.scan(bundleJob({
      "index.html": `<!DOCTYPE html><html><head><script src="js/ad.js"></script></head><body style="margin:0"><div id="ad" style="display:none;width:300px;height:250px;background:#264653"></div></body></html>`,
      "js/ad.js": js,
    }, "index.html"));
    expect(r.creativeRendered).toBe(true);
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
    expect(r.missingAssets).toEqual([]);
  });

  it("a bundle that waits for load gets ready before stateChange, even when its load comes before the container's timer", async () => {
    // As the IAB MRAID 3.0 compliance ads: mraid.js injected by the ad's script, then on load — state still loading —
    // ready and stateChange registered at once, the markup built on ready. Its timers slowed, the load event surely
    // comes first (on a loaded machine it may anyway): a stateChange before ready would find no markup and throw.
    const js = `var slow = window.setTimeout; window.setTimeout = function (f, ms) { return slow(f, (ms || 0) + 400); };
var s = document.createElement("script"); s.src = "mraid.js"; document.head.appendChild(s);
window.addEventListener("load", function () {
  function build() { var d = document.createElement("div"); d.id = "ad"; d.style.cssText = "width:300px;height:250px;background:#264653"; document.body.appendChild(d); }
  function changed() { document.getElementById("ad").style.outline = "1px solid #e9c46a"; }
  if (mraid.getState() === "loading") mraid.addEventListener("ready", build); else build();
  mraid.addEventListener("stateChange", changed);
});`;
    const r = await scanner.scan(bundleJob({
      "index.html": `<!DOCTYPE html><html><head><script src="js/ad.js"></script></head><body style="margin:0"></body></html>`,
      "js/ad.js": js,
    }, "index.html"));
    expect(r.console?.errors).toEqual([]);
    expect(r.creativeRendered).toBe(true);
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
  });
});

describeWithCorpus("MRAID test ads of the AppNexus SDK (corpus)", "adtags/appnexus-mobile-sdk-android-mraid", (corpus) => {
  it("mraid_1_assertions: the container passes the checks an MRAID 1 container must pass", async () => {
    const r = await scanner.scan(tagJob(readFileSync(path.join(corpus, "mraid_1_assertions.html"), "utf8")));
    const said = r.dialogs.map((d) => d.message);
    expect(r.console?.errors).toEqual([]);
    for (const pass of ["Loading state", "Default state in onReady", "Viewable in onReady", "Viewable in default state"]) {
      expect(said).toContain(`PASS: Assertion passed: ${pass}`);
    }
    expect(said).toContain("PASS: onReady() called");
    expect(said.filter((m) => m.startsWith("FAIL") && !/Get Version|Set expand properties/.test(m))).toEqual([]);
  });

  it("mraid_demo: draws its call to action once the container says it is in the default state", async () => {
    const r = await scanner.scan(tagJob(readFileSync(path.join(corpus, "mraid_demo.html"), "utf8")));
    expect(r.console?.errors).toEqual([]);
    expect(r.dialogs.map((d) => d.message)).toContain("DEFAULT");
    expect(r.creativeRendered).toBe(true);
    // Its kitten is an http:// URL on the internet, which this machine does not reach.
    expect(r.ssl?.insecureUrls).toEqual(["http://www.katiediaries.com/images/eatplay.gif"]);
    expect(r.missingAssets.map((m) => m.url)).not.toContain("https://creative.cva.invalid/mraid.js");
  });

  it("IAB MRAID 3.0 compliance ad (loadandevents, served as its bundle): loads mraid.js from its script and renders, without errors", async () => {
    const dir = path.join(corpus, "../iab-mraid-3.0-compliance-ads/loadandevents");
    const r = await scanner.scan(bundleJob({ "ad.html": readFileSync(path.join(dir, "ad.html")), "aronmraid3.js": readFileSync(path.join(dir, "aronmraid3.js")) }, "ad.html"));
    expect(r.console?.errors).toEqual([]);
    expect(r.missingAssets).toEqual([]);
    expect(r.creativeRendered).toBe(true);
  });
});
