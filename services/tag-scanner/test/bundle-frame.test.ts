// A zip's entry rendered the way ad servers serve HTML5 zips: in a frame of its ad.size (Bundle.frame_size). Known
// truth: a responsive export fills whatever window it gets, so framed at 300x250 it measures 300x250, and unframed it
// measures the scanner's viewport — the field audit's "responsive exports report the viewport as their dimensions".
import { create } from "@bufbuild/protobuf";
import { Device, ScanJobSchema, ScanKind, type ScanJob } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { sharedBrowserPool } from "./shared-pool.ts";
import { SYNTHETIC_ORIGIN } from "../src/config.ts";
import { buildSyntheticSite, slotPageHtml } from "../src/synthetic-origin.ts";

function framedJob(files: Record<string, string>, frame?: { width: number; height: number }, device = Device.DESKTOP): ScanJob {
  const enc = new TextEncoder();
  return create(ScanJobSchema, {
    jobId: `f-${Math.random().toString(36).slice(2)}`,
    kind: ScanKind.TAG,
    apiVersion: "v2",
    targeting: { device },
    input: {
      case: "tag",
      value: {
        creative: {
          case: "bundle",
          value: {
            entry: "index.html",
            files: Object.entries(files).map(([path, d]) => ({ path, data: enc.encode(d) })),
            ...(frame ? { frameSize: frame } : {}),
          },
        },
      },
    },
  });
}

const AD_SIZE = '<meta name="ad.size" content="width=300,height=250">';

/** Google Web Designer "responsive" layout: the page container is 100% of the window. */
const GWD_RESPONSIVE = `<!DOCTYPE html><html><head><meta charset="utf-8">${AD_SIZE}
<meta name="generator" content="Google Web Designer 15.0.0.0">
<style>html,body{width:100%;height:100%;margin:0}.gwd-page-container{position:relative;width:100%;height:100%}
.gwd-page-size{width:100%;height:100%}#bg{position:absolute;inset:0;background:#0a6}</style></head>
<body><div id="page1" class="gwd-page-container gwd-page-size"><div id="bg"></div></div></body></html>`;

/** Hype "scale to fit": the runtime scales a fixed stage to the window's size with a transform. */
const HYPE_SCALE_TO_FIT = `<!DOCTYPE html><html><head><meta charset="utf-8">${AD_SIZE}
<style>html,body{margin:0;overflow:hidden}#stage{position:absolute;left:0;top:0;width:600px;height:500px;background:#a06;transform-origin:0 0}</style></head>
<body><div id="hype_container" class="HYPE_document"><div id="stage"></div></div>
<script>function fit(){var s=Math.min(window.innerWidth/600,window.innerHeight/500);document.getElementById("stage").style.transform="scale("+s+")";}
fit();window.addEventListener("resize",fit);</script></body></html>`;

/** A fixed-size creative: the frame changes nothing about it. */
const FIXED = `<!DOCTYPE html><html><head>${AD_SIZE}<style>body{margin:0}#ad{width:300px;height:250px;background:#c00}</style></head>
<body><div id="ad"></div><img src="img/missing.png" alt=""><script src="js/main.js"></script></body></html>`;

describe("slot page (unit)", () => {
  it("frames the entry at exactly the frame size, same origin; the entry and files are still served by path", () => {
    const site = buildSyntheticSite(framedJob({ "index.html": FIXED, "js/main.js": "1" }, { width: 300, height: 250 }));
    expect(site.entryUrl).toBe(`${SYNTHETIC_ORIGIN}/__cva_slot__.html`);
    expect(site.slot).toEqual({ creativeUrl: `${SYNTHETIC_ORIGIN}/index.html`, width: 300, height: 250 });
    const slot = new TextDecoder().decode(site.respond(site.entryUrl)!.body);
    expect(slot).toContain('<iframe src="/index.html" width="300" height="250"');
    expect(slot).toContain("width:300px;height:250px");
    expect(new TextDecoder().decode(site.respond(`${SYNTHETIC_ORIGIN}/index.html`)!.body)).toBe(FIXED);
    expect(site.respond(`${SYNTHETIC_ORIGIN}/js/main.js`)!.status).toBe(200);
    expect(site.respond(`${SYNTHETIC_ORIGIN}/img/missing.png`)!.status).toBe(404);
    // The creative's own markup is still what declared size, ad server and ad-block checks read.
    expect(site.markup).toBe(FIXED);
  });

  it("never shadows a bundle file, and without a frame size the entry is the top document", () => {
    const clash = buildSyntheticSite(framedJob({ "index.html": FIXED, "__cva_slot__.html": "mine" }, { width: 300, height: 250 }));
    expect(clash.entryUrl).toBe(`${SYNTHETIC_ORIGIN}/__cva_slot1__.html`);
    expect(new TextDecoder().decode(clash.respond(`${SYNTHETIC_ORIGIN}/__cva_slot__.html`)!.body)).toBe("mine");
    const unframed = buildSyntheticSite(framedJob({ "index.html": FIXED }));
    expect(unframed.entryUrl).toBe(`${SYNTHETIC_ORIGIN}/index.html`);
    expect(unframed.slot).toBeUndefined();
    expect(slotPageHtml("sub dir/index.html", 728, 90)).toContain('src="/sub%20dir/index.html" width="728" height="90"');
  });
});

describe("framed bundles in Chromium", () => {
  let pool: BrowserPool;
  let scanner: TagScanner;
  beforeAll(() => {
    pool = sharedBrowserPool(2);
    scanner = createTagScanner({
      pool, artifacts: createMemoryArtifactSink(), location: "usa",
      policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
      timeouts: { renderMs: 12_000, holdMs: 1_200, stepMs: 4_000, landingMs: 4_000 },
    });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it("a GWD responsive export measures its ad size framed, and the viewport unframed (the audit's finding)", async () => {
    const framed = await scanner.scan(framedJob({ "index.html": GWD_RESPONSIVE }, { width: 300, height: 250 }));
    expect(framed.dimensions).toMatchObject({ width: 300, height: 250 });
    expect(framed.creativeRendered).toBe(true);
    expect(framed.visualArtifacts).toBe(false);
    // Responsive: it follows a narrower slot.
    expect(framed.mobileFriendly).toBe(true);
    const unframed = await scanner.scan(framedJob({ "index.html": GWD_RESPONSIVE }));
    expect(unframed.dimensions).toMatchObject({ width: 1366, height: 768 });
  });

  it("a Hype scale-to-fit export scales to the slot: 300x250, not 600x500 or the viewport", async () => {
    const r = await scanner.scan(framedJob({ "index.html": HYPE_SCALE_TO_FIT }, { width: 300, height: 250 }));
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
  });

  it("on a phone too: the slot is the ad size, not 390 px wide", async () => {
    const r = await scanner.scan(framedJob({ "index.html": GWD_RESPONSIVE }, { width: 320, height: 50 }, Device.MOBILE));
    expect(r.dimensions).toMatchObject({ width: 320, height: 50 });
  });

  it("a fixed creative framed keeps every other measurement: files, missing assets, screenshot colour", async () => {
    const r = await scanner.scan(framedJob({ "index.html": FIXED, "js/main.js": "localStorage.setItem('framed', 'yes');" }, { width: 300, height: 250 }));
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
    expect(r.declaredDimensions).toMatchObject({ width: 300, height: 250 });
    const paths = r.network!.responses.map((x) => new URL(x.url).pathname);
    expect(paths).toEqual(expect.arrayContaining(["/index.html", "/js/main.js", "/img/missing.png"]));
    expect(r.missingAssets.map((m) => new URL(m.url).pathname)).toEqual(["/img/missing.png"]);
    expect(r.localStorage).toContainEqual(expect.objectContaining({ key: "framed", value: "yes" }));
    expect(r.screenshot?.highres?.color).toBe("#cc0000");
    // The slot page and its frame are ours: not in the network list, not an iframe of the creative's; the
    // DOMContentLoaded is the creative document's own.
    expect(paths).not.toContain("/__cva_slot__.html");
    expect(r.iframes).toBe(0);
    expect(Number(r.domContentLoadedMs)).toBeGreaterThanOrEqual(0);
    expect(r.mobileFriendly).toBe(false); // a fixed 300 px creative does not follow a narrower slot
  });

  it("checks the creative's frame for accessibility, not the slot page: its image without alt, its document's language", async () => {
    // axe goes into the slot's frame during the measure phase (phases/accessibility.ts loadAxeTop): the checks find
    // it there and run it on the creative's document, whose <html> (no lang) is the creative's own.
    const gif = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==";
    const html = `<!DOCTYPE html><html><head>${AD_SIZE}<style>body{margin:0}</style></head>
<body><div style="width:300px;height:250px;background:#fff"><img id="noalt" src="${gif}" width="120" height="60"></div></body></html>`;
    const r = await scanner.scan(framedJob({ "index.html": html }, { width: 300, height: 250 }));
    const a = r.accessibility!;
    const rules = Object.fromEntries(a.violations.map((v) => [v.ruleId, v]));
    expect(a.documentCheckError).toBe("");
    expect(rules["image-alt"]?.targets).toEqual([`frame ${SYNTHETIC_ORIGIN}/index.html >> #noalt`]);
    expect(rules["html-has-lang"]).toBeDefined();
  });
});
