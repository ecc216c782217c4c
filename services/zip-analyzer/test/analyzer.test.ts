import { create } from "@bufbuild/protobuf";
import { CreativeType, ScanJobSchema, ScanKind } from "@cva/contracts";
import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createZipAnalyzer, ZipError } from "../src/index.ts";
import { fakeRender, ORIGIN, zipJob } from "./fixtures.ts";
import { buildZip } from "./zip-writer.ts";

const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(40, 7)]);

const UNMINIFIED_JS = `// Banner animation
function start(element, duration) {
  var frames = [];
  for (var index = 0; index < 10; index++) {
    frames.push({ step: index, opacity: index / 10 });
  }
  return frames;
}
document.addEventListener("DOMContentLoaded", function () { start(document.body, 1000); });
`;
const UNMINIFIED_CSS = `body {
  margin: 0;
  padding: 0;
}

.banner {
  width: 300px;
  height: 250px;
  background-color: #ffffff;
}
`;
const INDEX = `<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <meta name="ad.size" content="width=300,height=250">
  <link rel="stylesheet" href="style.css">
  <script>var clickTag = "https://www.example.com";</script>
</head>
<body><a href="javascript:window.open(window.clickTag)"><img src="img/logo.png"></a><script src="main.js"></script></body>
</html>
`;

describe("createZipAnalyzer", () => {
  it("reports the fields of an unminified creative with clickTag and ad.size", async () => {
    const { render, calls } = fakeRender();
    const zip = buildZip([
      { name: "index.html", data: INDEX },
      { name: "main.js", data: UNMINIFIED_JS },
      { name: "style.css", data: UNMINIFIED_CSS, method: 0 },
      { name: "img/logo.png", data: PNG },
    ]);
    const report = await createZipAnalyzer({ render }).analyze(zipJob(zip));
    expect(report.clickTagFound).toBe(true);
    expect(report.metaAdSize).toBe(true);
    expect(report.minified).toBe(false);
    expect(report.hasExternalAssets).toBe(false);
    expect(report.html5Library).toBe("");
    expect(report.entryPoint).toBe("index.html");
    expect(report.fileStructure.map((f) => ({ name: f.name, bytes: f.bytes, type: f.type }))).toEqual([
      { name: "index.html", bytes: BigInt(Buffer.byteLength(INDEX)), type: "html" },
      { name: "main.js", bytes: BigInt(Buffer.byteLength(UNMINIFIED_JS)), type: "script" },
      { name: "style.css", bytes: BigInt(Buffer.byteLength(UNMINIFIED_CSS)), type: "style" },
      { name: "img/logo.png", bytes: BigInt(PNG.length), type: "image" },
    ]);
    expect(report.render?.meta?.creativeType).toBe(CreativeType.ZIP);
    expect(report.render?.declaredDimensions).toMatchObject({ width: 300, height: 250 });
    expect(report.render?.creativeRendered).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0].entry).toBe("index.html");
    expect(calls[0].files.map((f) => f.path)).toEqual(["index.html", "main.js", "style.css", "img/logo.png"]);
    expect(Buffer.from(calls[0].files[3].data).equals(PNG)).toBe(true);
    // Rendered in a slot of its ad.size, as ad servers serve it.
    expect(calls[0].frameSize).toMatchObject({ width: 300, height: 250 });
  });

  it("reports a minified creative without clickTag or ad.size", async () => {
    const { render, calls } = fakeRender();
    const zip = buildZip([
      { name: "index.html", data: '<!DOCTYPE html><html><head><link rel="stylesheet" href="s.min.css"></head><body><script src="a.min.js"></script></body></html>' },
      { name: "a.min.js", data: "/*! banner */\nwindow.start=function(n){for(var o=[],t=0;t<10;t++)o.push(t/n);return o};" },
      { name: "s.min.css", data: "body{margin:0}.banner{width:300px;height:250px}" },
    ]);
    const report = await createZipAnalyzer({ render }).analyze(zipJob(zip));
    expect({ click: report.clickTagFound, meta: report.metaAdSize, minified: report.minified }).toEqual({ click: false, meta: false, minified: true });
    expect(report.render?.declaredDimensions).toBeUndefined();
    // No declared size, no slot to honour: the entry opens as the page.
    expect(calls[0].frameSize).toBeUndefined();
  });

  it("finds a clickTag declared in a script file index.html loads (was false)", async () => {
    const { render } = fakeRender();
    const zip = buildZip([
      { name: "index.html", data: '<html><head><meta name="ad.size" content="width=300,height=250"></head><body><script src="js/ad.js"></script></body></html>' },
      { name: "js/ad.js", data: 'var clickTag = "https://advertiser.example/";\ndocument.body.onclick = function () { window.open(clickTag); };' },
    ]);
    expect((await createZipAnalyzer({ render }).analyze(zipJob(zip))).clickTagFound).toBe(true);
  });

  it("analyses a Windows Compress-Archive zip (backslash paths) like any other (was refused)", async () => {
    const { render, calls } = fakeRender();
    const dos = 20;
    const zip = buildZip([
      { name: "index.html", data: INDEX, versionMadeBy: dos },
      { name: "main.js", data: UNMINIFIED_JS, versionMadeBy: dos },
      { name: "img\\logo.png", data: PNG, versionMadeBy: dos },
    ]);
    const report = await createZipAnalyzer({ render }).analyze(zipJob(zip));
    expect(report.fileStructure.map((f) => f.name)).toEqual(["index.html", "main.js", "img/logo.png"]);
    // The bundle serves img/logo.png where index.html's <img src="img/logo.png"> asks for it.
    expect(calls[0].files.map((f) => f.path)).toContain("img/logo.png");
  });

  it("uses a single top-level folder as the root", async () => {
    const { render, calls } = fakeRender();
    const zip = buildZip([
      { name: "banner_300x250/", method: 0 },
      { name: "banner_300x250/index.html", data: INDEX },
      { name: "banner_300x250/img/logo.png", data: PNG },
      { name: "__MACOSX/banner_300x250/._index.html", data: "resource fork" },
    ]);
    const report = await createZipAnalyzer({ render }).analyze(zipJob(zip));
    expect(report.entryPoint).toBe("banner_300x250/index.html");
    expect(report.fileStructure.map((f) => f.name)).toEqual(["banner_300x250/index.html", "banner_300x250/img/logo.png"]);
    expect(calls[0].files.map((f) => f.path)).toEqual(["index.html", "img/logo.png"]);
  });

  it("names GSAP in html5_library", async () => {
    const { render } = fakeRender();
    const zip = buildZip([
      { name: "index.html", data: '<html><head><script src="js/TweenMax.min.js"></script></head><body></body></html>' },
      { name: "js/TweenMax.min.js", data: "var _gsScope=\"undefined\"!=typeof module?module:this;" },
    ]);
    expect((await createZipAnalyzer({ render }).analyze(zipJob(zip))).html5Library).toContain("GSAP");
  });

  it("sets has_external_assets from the render's network", async () => {
    const index = { name: "index.html", data: "<html><body><script src=\"a.js\"></script></body></html>" };
    const zip = buildZip([index, { name: "a.js", data: "var s=document.createElement('script');" }]);
    const external = fakeRender(["https://cdn.example.com/lib.js"]);
    expect((await createZipAnalyzer({ render: external.render, bundleOrigin: ORIGIN }).analyze(zipJob(zip))).hasExternalAssets).toBe(true);
    const local = fakeRender([`${ORIGIN}/a.js`]);
    expect((await createZipAnalyzer({ render: local.render, bundleOrigin: ORIGIN }).analyze(zipJob(zip))).hasExternalAssets).toBe(false);
    // Without a configured origin the entry document's host is the bundle's own.
    expect((await createZipAnalyzer({ render: external.render }).analyze(zipJob(zip))).hasExternalAssets).toBe(true);
  });

  it("sets has_external_assets from static references when the render saw none", async () => {
    const { render } = fakeRender();
    const zip = buildZip([{ name: "index.html", data: '<html><head><script src="https://s0.2mdn.net/ads/studio/Enabler.js"></script></head></html>' }]);
    expect((await createZipAnalyzer({ render }).analyze(zipJob(zip))).hasExternalAssets).toBe(true);
  });

  it("refuses before rendering: ZipError for a hostile zip or a zip without index.html", async () => {
    const { render, calls } = fakeRender();
    const analyzer = createZipAnalyzer({ render });
    await expect(analyzer.analyze(zipJob(buildZip([{ name: "../x.html", data: "x" }])))).rejects.toThrow(ZipError);
    await expect(analyzer.analyze(zipJob(buildZip([{ name: "main.html", data: "<html></html>" }]))))
      .rejects.toThrow("the zip has no index.html at its root or in a single top-level folder");
    const notZip = create(ScanJobSchema, { jobId: "j", kind: ScanKind.ZIP, input: { case: "vast", value: { url: "https://x" } } });
    await expect(analyzer.analyze(notZip)).rejects.toThrow(ZipError);
    expect(calls).toHaveLength(0);
  });

  it("passes a render failure on (not as a ZipError)", async () => {
    const analyzer = createZipAnalyzer({ render: async () => { throw new Error("no worker resources"); } });
    const zip = buildZip([{ name: "index.html", data: INDEX }, { name: "main.js", data: UNMINIFIED_JS }]);
    const err = await analyzer.analyze(zipJob(zip)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ZipError);
  });

  it("a minified check that cannot finish reports minified as not measured, with why (never a default true)", async () => {
    const { render } = fakeRender();
    const zip = buildZip([{ name: "index.html", data: "<html></html>" }, { name: "a.min.js", data: "window.a=1;" }]);
    const report = await createZipAnalyzer({ render, minify: { maxFileBytes: 5 } }).analyze(zipJob(zip));
    expect(report.notMeasured).toEqual(["minified"]);
    expect(report.errors).toEqual(["minified not measured: 1 file not checked: a.min.js (larger than 5 bytes)"]);
    const measured = await createZipAnalyzer({ render }).analyze(zipJob(zip));
    expect(measured).toMatchObject({ minified: true, notMeasured: [], errors: [] });
  });

  it("counts real bytes of deflated entries in file_structure", async () => {
    const { render } = fakeRender();
    const big = Buffer.alloc(100_000, 0x20);
    expect(deflateRawSync(big).length).toBeLessThan(1000);
    const zip = buildZip([{ name: "index.html", data: "<html></html>" }, { name: "data.txt", data: big }]);
    const report = await createZipAnalyzer({ render }).analyze(zipJob(zip));
    expect(report.fileStructure[1]).toMatchObject({ name: "data.txt", bytes: 100_000n, type: "data" });
  });
});
