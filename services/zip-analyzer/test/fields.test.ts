import { describe, expect, it } from "vitest";
import {
  checkMinified, minifiedNotMeasured, clickTagFound, externalUrlsInCss, externalUrlsInHtml, findEntryPoint, metaAdSize, requestsLeavingOrigin,
} from "../src/index.ts";
import { classifyFile } from "../src/fields/file-type.ts";
import { detectHtml5Libraries } from "../src/fields/html5-library.ts";
import type { FileEntry } from "../src/fields/file-structure.ts";

const script = (code: string): string => `<html><head><script>${code}</script></head><body></body></html>`;

describe("click_tag_found", () => {
  it.each([
    ['var clickTag = "https://example.com";'],
    ["var clickTAG = 'https://example.com'"],
    ["let clicktag=\"x\""],
    ['var clickTag1 = "a", clickTag2 = "b";'],
    ['window.clickTag = "https://example.com";'],
    ['window["clickTAG"] = "https://example.com";'],
    ["var clickTag;"],
    ['clickTag = getParam("clickTag");'],
    ['amo.registerClick("clickTag", "http://www.example.com");'],
    ["dhtml.getVar('clickTAG', 'http://example.com')"],
  ])("counts %s", (code) => expect(clickTagFound(script(code))).toBe(true));

  it.each([
    ["Enabler.exit('Background exit');"],
    ["EB.clickthrough();"],
    ["APPNEXUS.click(); var u = APPNEXUS.getClickTag();"],
    ["window.open(window.clickTag);"],
    ["if (clickTag == null) {}"],
    ['// var clickTag = "commented out";'],
    ['/* var clickTag = "commented out"; */'],
    ['var url = "http://example.com/"; // clickTag = 1'],
  ])("does not count %s", (code) => expect(clickTagFound(script(code))).toBe(false));

  it("ignores a declaration in an external script tag's attributes or the text", () => {
    expect(clickTagFound('<script src="clickTag=1.js"></script><p>var clickTag = 1</p>')).toBe(false);
  });

  it("reads the zip's script files that index.html loads (was false for a clickTag in main.js)", () => {
    const files: Record<string, string> = {
      "banner/js/main.js": 'var clickTag = "https://advertiser.example/";\nfunction go() { window.open(clickTag); }',
      "banner/js/unused.js": 'var clickTag = "never loaded";',
      "banner/lib.js": "var x = 1;",
    };
    const read = (p: string) => files[p];
    const html = '<script src="lib.js"></script><script src="./js/main.js?v=3"></script>';
    expect(clickTagFound(html, "banner/index.html", read)).toBe(true);
    // Only what index.html loads: the same declaration in a file it does not load, or on another host, is not its.
    expect(clickTagFound('<script src="lib.js"></script>', "banner/index.html", read)).toBe(false);
    expect(clickTagFound('<script src="https://cdn.example/js/main.js"></script>', "banner/index.html", read)).toBe(false);
    // Served with the creative's folder as the site root, "/js/main.js" is banner/js/main.js.
    expect(clickTagFound('<script src="/js/main.js"></script>', "banner/index.html", read)).toBe(true);
    expect(clickTagFound('<script src="/banner/js/main.js"></script>', "banner/index.html", read)).toBe(false);
  });
});

describe("meta_ad_size", () => {
  it.each([
    ['<meta name="ad.size" content="width=300,height=250">', 300, 250],
    ["<meta content='height=250, width=300' name='ad.size'>", 300, 250],
    ['<META NAME="AD.SIZE" CONTENT=" width = 728 ; height = 90 ">', 728, 90],
    ["<meta name=ad.size content=width=160,height=600>", 160, 600],
    ['<meta name="ad.size" content="width=300px,height=250px"/>', 300, 250],
  ])("parses %s", (html, width, height) => expect(metaAdSize(html)).toEqual({ found: true, width, height }));

  it.each([
    ['<meta name="ad.size" content="width=300">'],
    ['<meta name="viewport" content="width=300,height=250">'],
    ['<!-- <meta name="ad.size" content="width=300,height=250"> -->'],
    ['<meta name="ad.size" content="300x250">'],
  ])("rejects %s", (html) => expect(metaAdSize(html).found).toBe(false));
});

describe("file types", () => {
  const png = Buffer.from("89504e470d0a1a0a", "hex");
  it.each([
    ["index.html", "", "html"], ["a/b.JS", "", "script"], ["s.css", "", "style"], ["f.woff2", "", "font"],
    ["v.mp4", "", "video"], ["a.mp3", "", "audio"], ["d.json", "", "data"], ["x.svg", "", "image"], ["readme", "", "other"],
  ])("%s → %s", (name, data, type) => expect(classifyFile(name, Buffer.from(data), false)).toBe(type));
  it("sniffs magic bytes when the extension says nothing", () => {
    expect(classifyFile("logo", png, false)).toBe("image");
    expect(classifyFile("page", Buffer.from("<!DOCTYPE html><html>"), false)).toBe("html");
    expect(classifyFile("inner.zip", Buffer.alloc(0), true)).toBe("archive");
  });
});

describe("html5_library", () => {
  const lib = (name: string, text: string, type: FileEntry["type"] = "script"): string[] =>
    detectHtml5Libraries([{ entry: { name, bytes: text.length, type }, text }]);
  it.each([
    ["GSAP", "main.js", "var _gsScope = typeof module !== 'undefined' ? module : this;"],
    ["GSAP", "index.html", '<script src="https://cdnjs.cloudflare.com/ajax/libs/gsap/latest/TweenMax.min.js"></script>'],
    ["CreateJS", "a.js", "stage = new createjs.Stage(canvas);"],
    ["Google Web Designer", "index.html", '<gwd-page id="page1" class="gwd-page-container">'],
    ["Hype", "a.js", "HYPE.documents['banner'].startTimelineNamed('x')"],
    ["jQuery", "a.js", "jQuery.fn.jquery"],
    ["anime.js", "a.js", "anime.timeline({loop:true})"],
    ["PixiJS", "a.js", "new PIXI.Application({})"],
    ["Three.js", "a.js", "new THREE.WebGLRenderer()"],
    ["Velocity", "a.js", "Velocity.animate(el, {opacity:1})"],
    ["Lottie", "a.js", "lottie.loadAnimation({container: el})"],
  ])("%s from %s", (name, file, text) => expect(lib(file, text, file.endsWith(".html") ? "html" : "script")).toEqual([name]));
  it("by file name alone", () => expect(lib("js/TweenMax.min.js", "")).toEqual(["GSAP"]));
  it("several, in a fixed order", () => {
    expect(detectHtml5Libraries([
      { entry: { name: "j.js", bytes: 1, type: "script" }, text: "jQuery.fn.jquery" },
      { entry: { name: "g.js", bytes: 1, type: "script" }, text: "TweenLite.to(x, 1, {})" },
    ])).toEqual(["GSAP", "jQuery"]);
  });
  it("none", () => expect(lib("a.js", "console.log('hello')")).toEqual([]));
});

describe("external assets", () => {
  it("finds asset URLs in HTML and CSS but not anchors or scripts' strings", () => {
    const html = `<link rel="stylesheet" href="https://fonts.example/css"><script src="//cdn.example/x.js"></script>
      <img srcset="a.png 1x, https://img.example/b.png 2x"><a href="https://landing.example">go</a>
      <div style="background:url('http://bg.example/a.png')"></div><script>var u = "https://not.counted/";</script>
      <style>@import "https://css.example/a.css"; .a{background:url(local.png)}</style>`;
    expect(externalUrlsInHtml(html)).toEqual([
      "https://fonts.example/css", "//cdn.example/x.js", "https://img.example/b.png", "http://bg.example/a.png",
      "https://css.example/a.css",
    ]);
    expect(externalUrlsInCss("a{background:url(img/x.png)} /* url(https://x.example/y.png) */")).toEqual([]);
  });
  it("tells requests that leave the bundle origin", () => {
    const responses = [
      { url: "https://creative.cva.invalid/index.html", resourceType: "document" },
      { url: "https://creative.cva.invalid/a.js", resourceType: "script" },
      { url: "data:image/png;base64,AAAA", resourceType: "image" },
      { url: "https://cdn.example/gsap.js", resourceType: "script" },
    ];
    expect(requestsLeavingOrigin(responses)).toEqual(["https://cdn.example/gsap.js"]);
    expect(requestsLeavingOrigin(responses.slice(0, 3), "https://creative.cva.invalid")).toEqual([]);
  });
});

describe("entry point", () => {
  it("is index.html at the root, or in a single top-level folder", () => {
    expect(findEntryPoint(["index.html", "a/b.js"])).toEqual({ root: "", path: "index.html" });
    expect(findEntryPoint(["banner/index.html", "banner/a.js"])).toEqual({ root: "banner/", path: "banner/index.html" });
  });
  it.each([[["main.html"]], [["a/index.html", "b/x.js"]], [["a/b/index.html"]], [["Index.html"]]])("refuses %j", (names) => {
    expect(() => findEntryPoint(names)).toThrow("the zip has no index.html at its root or in a single top-level folder");
  });
});

describe("minified", () => {
  const js = (name: string, code: string) => ({ name, kind: "js" as const, code });
  const css = (name: string, code: string) => ({ name, kind: "css" as const, code });
  it("is false when a file shrinks by more than 5%", async () => {
    const r = await checkMinified([js("a.js", "function add(first, second) {\n  // sum\n  return first + second;\n}\nwindow.add = add;\n")]);
    expect(r.minified).toBe(false);
    expect(r.measured[0].saving).toBeGreaterThan(0.05);
  });
  it("is true for minified files, keeping licence comments", async () => {
    const r = await checkMinified([
      js("a.min.js", "/*! lib v1 | MIT */\nwindow.add=function(n,d){return n+d};"),
      css("s.min.css", "/*! theme */\nbody{margin:0}.a{color:red}"),
    ]);
    expect(r).toMatchObject({ minified: true, skipped: [] });
    expect(r.measured).toHaveLength(2);
  });
  it("skips and notes a file the minifier cannot parse", async () => {
    const r = await checkMinified([js("broken.js", "function (((( {"), css("ok.css", "a{color:red}")]);
    expect(r.minified).toBe(true);
    expect(r.skipped).toEqual([{ name: "broken.js", reason: expect.stringMatching(/^could not be parsed/) }]);
  });
  it("is not measured when a file was never checked (too large, time-out); an unminified file still settles it", async () => {
    const readable = js("readable.js", "function add(first, second) {\n  // sum\n  return first + second;\n}\nwindow.add = add;\n");
    const big = js("big.min.js", `window.x=${"1".repeat(200)};`);
    const tooBig = await checkMinified([big, js("a.min.js", "window.a=1;")], { maxFileBytes: 100 });
    expect(tooBig.minified).toBe(true);
    expect(minifiedNotMeasured(tooBig)).toBe("minified not measured: 1 file not checked: big.min.js (larger than 100 bytes)");
    const settled = await checkMinified([big, readable], { maxFileBytes: 100 });
    expect(settled.minified).toBe(false);
    expect(minifiedNotMeasured(settled)).toBeUndefined();
    const broken = await checkMinified([js("broken.js", "function (((( {")]);
    expect(minifiedNotMeasured(broken)).toBeUndefined();
  });
  it("is false for unminified CSS", async () => {
    const r = await checkMinified([css("s.css", "body {\n  margin: 0;\n  padding: 0;\n}\n\n.banner {\n  color: #ff0000;\n}\n")]);
    expect(r.minified).toBe(false);
  });
});

describe("hostile markup", () => {
  it("scans pathological HTML and CSS in linear time (would time out otherwise)", () => {
    const n = 300_000;
    const html = "<a ".repeat(n) + "<script>".repeat(n) + "<!--".repeat(n) + '<x "'.repeat(n) + "url(".repeat(n);
    expect(metaAdSize(html).found).toBe(false);
    expect(clickTagFound(html)).toBe(false);
    expect(externalUrlsInHtml(html)).toEqual([]);
    expect(externalUrlsInCss("url(".repeat(n) + "@import '".repeat(n))).toEqual([]);
  });
});
