// Every scan kind through the real edge, queue and scanners (Chromium, ffmpeg), against local fixture servers:
// the reports carry measured values, their images are served with the byte counts the report states, stored
// reports come back identical, and the report page renders in a browser. The web console, the CLI and the internal
// doors' hostile cases run on the same stack (console-cases.ts, internal-doors-cases.ts): a stack costs 30-40 s of CPU.
import { execFile } from "node:child_process";
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { crc32, deflateSync } from "node:zlib";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusDir, itWithCorpus } from "@cva/platform/testing/index.ts";
import { b64, postJson, startStack, type TestStack } from "../harness/stack.ts";
import { buildZip } from "../harness/zip.ts";
import { builtStackCase } from "./built-stack-case.ts";
import { consoleAndCliCases } from "./console-cases.ts";
import { internalDoorsCases } from "./internal-doors-cases.ts";

const run = promisify(execFile);

/** A PNG of one colour (a backup image of the ad's size). */
function solidPng(w: number, h: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])));
    return Buffer.concat([len, Buffer.from(type), data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc(h * (1 + w * 3), 0x40);
  for (let y = 0; y < h; y++) raw[y * (1 + w * 3)] = 0;
  return Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw, { level: 9 })), chunk("IEND", Buffer.alloc(0))]);
}
// Every creative folder of the corpus (source/creative), as zip entries with the folder's contents at the root.
function corpusBanners(html5Corpus: string): Array<{ name: string; files: Record<string, Buffer> }> {
  const walk = (dir: string, prefix = ""): Record<string, Buffer> =>
    Object.assign({}, ...readdirSync(dir).map((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p, `${prefix}${n}/`) : { [`${prefix}${n}`]: readFileSync(p) };
    }));
  return readdirSync(html5Corpus).flatMap((source) =>
    statSync(join(html5Corpus, source)).isDirectory()
      ? readdirSync(join(html5Corpus, source)).filter((c) => statSync(join(html5Corpus, source, c)).isDirectory()).map((c) => ({ name: `${source}/${c}`, files: walk(join(html5Corpus, source, c)) }))
      : [],
  );
}

describe("scans end to end", () => {
  let stack: TestStack;
  let key: string;
  let fixture: http.Server;
  let origin: string;
  let dir: string;
  const seen: Array<{ url: string; headers: http.IncomingHttpHeaders }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cva-e2e-"));
    const media = join(dir, "ad.mp4");
    await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", "-shortest", media]);
    fixture = http.createServer((req, res) => {
      seen.push({ url: req.url!, headers: req.headers });
      if (req.url === "/ad.mp4") {
        res.writeHead(200, { "content-type": "video/mp4" });
        return void createReadStream(media).pipe(res);
      }
      if (req.url === "/vast.xml") {
        res.writeHead(200, { "content-type": "application/xml", "access-control-allow-origin": req.headers.origin ?? "*", "access-control-allow-credentials": "true" });
        return void res.end(`<?xml version="1.0"?><VAST version="4.1"><Ad id="1"><InLine><AdSystem>e2e</AdSystem><AdTitle>E2E ad</AdTitle>
<Impression><![CDATA[${origin}/imp]]></Impression><Creatives><Creative><Linear><Duration>00:00:02</Duration><MediaFiles>
<MediaFile delivery="progressive" type="video/mp4" width="640" height="360" bitrate="800"><![CDATA[${origin}/ad.mp4]]></MediaFile>
</MediaFiles><VideoClicks><ClickThrough><![CDATA[https://advertiser.example/]]></ClickThrough></VideoClicks></Linear></Creative></Creatives></InLine></Ad></VAST>`);
      }
      if (req.url?.startsWith("/dead-wrapper.xml")) {
        const port = new URL(req.url, origin).searchParams.get("port");
        res.writeHead(200, { "content-type": "application/xml" });
        return void res.end(`<VAST version="3.0"><Ad id="w"><Wrapper><AdSystem>e2e</AdSystem><VASTAdTagURI>http://127.0.0.1:${port}/vast.xml</VASTAdTagURI><Impression>${origin}/imp</Impression></Wrapper></Ad></VAST>`);
      }
      if (req.url === "/simid-vast.xml") {
        res.writeHead(200, { "content-type": "application/xml" });
        return void res.end(`<VAST version="4.2"><Ad id="s"><InLine><AdSystem>e2e</AdSystem><AdTitle>SIMID</AdTitle><Impression><![CDATA[${origin}/imp]]></Impression>
<Creatives><Creative><Linear><Duration>00:00:02</Duration><AdParameters><![CDATA[e2e-params]]></AdParameters><MediaFiles>
<MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[${origin}/ad.mp4]]></MediaFile>
<InteractiveCreativeFile type="text/html" apiFramework="SIMID"><![CDATA[${origin}/simid.html]]></InteractiveCreativeFile>
</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`);
      }
      if (req.url === "/simid.html") {
        // A SIMID creative of ours: createSession, then resolves Player:init and Player:startCreative.
        res.writeHead(200, { "content-type": "text/html" });
        return void res.end(`<!doctype html><script>
const sessionId = "e2e-" + Math.random().toString(36).slice(2); let n = 0;
const post = (type, args) => parent.postMessage(JSON.stringify({ sessionId, messageId: n++, timestamp: Date.now(), type, args }), "*");
addEventListener("message", (e) => { const m = JSON.parse(e.data);
  if (m.type === "SIMID:Player:init") post("SIMID:Creative:log", { message: m.args.creativeData.adParameters });
  if (m.type === "SIMID:Player:init" || m.type === "SIMID:Player:startCreative") post("resolve", { messageId: m.messageId }); });
post("createSession", {});
</script>`);
      }
      if (req.url === "/pixel.gif") {
        res.writeHead(200, { "content-type": "image/gif", "set-cookie": "uid=42; Path=/; HttpOnly" });
        return void res.end(Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64"));
      }
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
    await new Promise<void>((r) => fixture.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
    stack = await startStack({ waitForWorkers: ["tag", "zip", "vast", "media"] });
    key = await stack.createKey("e2e", 1000);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    fixture?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function expectImage(img: { url: string; bytes: number; mime_type: string }) {
    const r = await fetch(img.url);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe(img.mime_type);
    expect((await r.arrayBuffer()).byteLength).toBe(img.bytes);
  }

  it("scans a v3 ad tag: measured fields, images, stored report, report page", async () => {
    const tag = `<div id="ad" style="width:300px;height:250px;background:#1a5;color:#fff">Hello<img src="${origin}/pixel.gif" width="1" height="1"></div>
<script>document.cookie = "js_cookie=1; path=/"; localStorage.setItem("k", "v"); console.error("boom");</script>`;
    const r = await postJson(`${stack.baseUrl}/v3/scanTag`, { data: b64(tag), name: "e2e tag", workspace_id: 3 }, key);
    expect(r.status, r.text).toBe(200);
    const rep = r.json;
    expect(rep.dimensions).toEqual({ width: 300, height: 250, text: "300x250" });
    expect(rep.creative_rendered).toBe(true);
    expect(rep.time_to_visual_start).toBeGreaterThanOrEqual(0);
    expect(rep.meta.creative_type).toBe("ad_tag");
    expect(rep.console.errors.join(" ")).toContain("boom");
    // The pixel's cookie is cross-site here (creative origin vs the fixture host) and has no SameSite=None, so a real
    // browser refuses it; the v2 test below sets one first-party at its page_url.
    expect(rep.cookies.map((c: { name: string }) => c.name)).toContain("js_cookie");
    expect(rep.local_storage).toEqual(expect.arrayContaining([expect.objectContaining({ key: "k", value: "v" })]));
    const pixel = rep.network.responses.find((x: { url: string }) => x.url.endsWith("/pixel.gif"));
    expect(pixel).toMatchObject({ status: 200, is_pixel: true, ssl: false, server_ip: "127.0.0.1" });
    expect(rep.ssl.compliant).toBe(false);
    expect(rep.ssl.insecure_urls).toContain(`${origin}/pixel.gif`);
    expect(rep.scan_results.passed + rep.scan_results.failed).toBeGreaterThan(0);
    await expectImage(rep.screenshot.highres);
    await expectImage(rep.screenshot.thumbnail);
    expect(rep.screenshot.highres.color).toBe("#11aa55");

    const stored = await fetch(`${stack.baseUrl}/v3/reports/${rep.job_id}`, { headers: { "x-apikey": key } });
    expect(await stored.text()).toBe(r.text);

    const browser = await puppeteer.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new", "--disable-gpu"] });
    try {
      const page = await browser.newPage();
      const resp = await page.goto(rep.scan_results.report_url, { waitUntil: "load" });
      expect(resp?.status()).toBe(200);
      const text = await page.evaluate(() => document.body.innerText);
      expect(text).toContain("e2e tag");
      expect(text).toContain("300x250");
      const imgLoaded = await page.evaluate(() => Array.from(document.images).some((i) => i.naturalWidth > 0));
      expect(imgLoaded).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it("scans a v2 ad tag with targeting observed by the creative's server", async () => {
    const tag = `<div style="width:320px;height:50px;background:#222"><img src="${origin}/pixel.gif" width="1" height="1"></div><script>fetch("${origin}/lang?" + navigator.language); document.cookie = "pub=" + encodeURIComponent(location.href) + "; path=/";</script>`;
    // A publisher page served by interception only: a page_url host must be public (a private one is refused, see
    // services/tag-scanner/test/hostile.test.ts), and .example names resolve nowhere.
    const pageUrl = "http://publisher.example/article?id=1";
    const r = await postJson(`${stack.baseUrl}/v2/scanTag`, { data: b64(tag), targeting: { device: "mobile", language: "nl-NL", country: "usa", page_url: pageUrl } }, key);
    expect(r.status, r.text).toBe(200);
    expect(r.json.meta.device).toMatch(/mobile/i);
    expect(r.json.meta.language).toBe("nl-NL");
    expect(r.json.meta.server_location).toBe("usa");
    expect(r.json).toHaveProperty("visual_artifacts");
    expect(r.json).not.toHaveProperty("scan_results");
    const hit = seen.find((s) => s.url.startsWith("/lang?"));
    expect(hit?.url).toBe("/lang?nl-NL");
    expect(hit?.headers["accept-language"]).toMatch(/^nl-NL/);
    expect(hit?.headers["user-agent"]).toMatch(/Mobile/);
    // The tag runs inside a host page whose URL is page_url: cross-origin requests carry its origin as referrer, and
    // a cookie the tag sets is first-party to page_url's host, with location.href = page_url.
    expect(hit?.headers.referer).toBe("http://publisher.example/");
    const pub = r.json.cookies.find((c: { name: string }) => c.name === "pub");
    expect(pub).toMatchObject({ value: encodeURIComponent(pageUrl), domain: "publisher.example" });
  });

  it("scans a v3 ad tag with targeting (our extension): tests, report page, and the targeting observed", async () => {
    const tag = `<div style="width:320px;height:50px;background:#2a6"></div><script>fetch("${origin}/lang3?" + navigator.language);</script>`;
    const r = await postJson(`${stack.baseUrl}/v3/scanTag`, { data: b64(tag), targeting: { device: "mobile", language: "nl-NL", country: "nld" } }, key);
    expect(r.status, r.text).toBe(200);
    expect(r.json.meta.api_version).toBe("v3");
    expect(r.json.meta.device).toMatch(/mobile/i);
    expect(r.json.meta.language).toBe("nl-NL");
    expect(r.json.meta.server_location).toBe("nld");
    expect(r.json.scan_results.passed + r.json.scan_results.failed).toBeGreaterThan(0);
    const hit = seen.find((s) => s.url.startsWith("/lang3?"));
    expect(hit?.url).toBe("/lang3?nl-NL");
    expect(hit?.headers["user-agent"]).toMatch(/Mobile/);
    // The report page exists and says how the tag was rendered.
    const page = await fetch(r.json.scan_results.report_url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/Mobile/);
    expect(html).toContain("nl-NL");
  });

  it("scans for targeting.country nld on the default stack (every worker serves usa and nld)", async () => {
    const tag = `<div style="width:300px;height:250px;background:#36c">nld</div>`;
    const nld = await postJson(`${stack.baseUrl}/v2/scanTag`, { data: b64(tag), targeting: { country: "nld" } }, key);
    expect(nld.status, nld.text).toBe(200);
    expect(nld.json.meta.server_location).toBe("nld");
    expect(nld.json.dimensions.text).toBe("300x250");
    // Without targeting the scan runs in the edge's first location.
    const usa = await postJson(`${stack.baseUrl}/v3/scanTag`, { data: b64(tag) }, key);
    expect(usa.status, usa.text).toBe(200);
    expect(usa.json.meta.server_location).toBe("usa");
  });

  it("scans a zip: zip fields plus the render of its index.html", async () => {
    const zip = buildZip({
      "banner/index.html": `<!doctype html><html><head><meta name="ad.size" content="width=300,height=250"><link rel="stylesheet" href="style.css">
<script>var clickTag = "https://advertiser.example/";</script></head><body><div id="ad"></div><script src="main.js"></script></body></html>`,
      "banner/style.css": "body {\n  margin: 0;\n}\n\n#ad {\n  width: 300px;\n  height: 250px;\n  background: #c30;\n}\n",
      "banner/main.js": "// a readable script\nfunction greet(name) {\n  var message = 'Hello ' + name;\n  return message;\n}\ngreet('world');\n",
    });
    const r = await postJson(`${stack.baseUrl}/v2/scanZip`, { data: zip.toString("base64"), targeting: { device: "mobile", language: "de-DE" } }, key);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ click_tag_found: true, meta_ad_size: true, minified: false, has_external_assets: false });
    expect(r.json.meta.creative_type).toBe("zip");
    // The render honours the zip's targeting.
    expect(r.json.meta.device).toMatch(/mobile/i);
    expect(r.json.meta.language).toBe("de-DE");
    expect(r.json.meta.ua).toMatch(/Mobile/);
    expect(r.json.dimensions.text).toBe("300x250");
    expect(r.json.file_structure).toEqual(expect.arrayContaining([expect.objectContaining({ name: "banner/main.js", type: "script" })]));
    await expectImage(r.json.screenshot.highres);

    const evil = buildZip({ "../escape.html": "<p>x</p>", "index.html": "<p>x</p>" });
    const bad = await postJson(`${stack.baseUrl}/v2/scanZip`, { data: evil.toString("base64") }, key);
    expect(bad.status).toBe(400);
    expect(bad.json.error_type).toBe("payload_error");
    expect(bad.json.message).toMatch(/traversal|escapes/);
  });

  it("scans a v3 zip: v3 fields, landing page through the click tag, backup ad, zip and tag tests", async () => {
    const zip = buildZip({
      "index.html": `<!doctype html><html><head><meta name="ad.size" content="width=300,height=250">
<script>var clickTag = "${origin}/landing";</script></head>
<body style="margin:0"><div id="ad" style="width:300px;height:250px;background:#2a6;cursor:pointer" onclick="window.open(window.clickTag)">v3</div></body></html>`,
      "backup.png": solidPng(300, 250),
    });
    const r = await postJson(`${stack.baseUrl}/v3/scanZip`, { data: zip.toString("base64"), name: "e2e zip v3", workspace_id: 4 }, key);
    expect(r.status, r.text).toBe(200);
    const rep = r.json;
    expect(rep.meta).toMatchObject({ creative_type: "zip", api_version: "v3" });
    expect(rep).toMatchObject({ name: "e2e zip v3", has_backup_ad: true, backup_ad: "backup.png", click_tag_found: true, click_tag_used: true, meta_ad_size: true });
    expect(rep.dimensions.text).toBe("300x250");
    expect(rep.time_to_visual_start).toBeGreaterThanOrEqual(0);
    expect(rep.landing_page.url).toBe(`${origin}/landing`);
    expect(rep.landing_page.tab).toBe("new_tab");
    // The render's film strip and click point (issue 26): a still ad is one frame, served as a JPEG; the click is the
    // clickable div's centre, the same point in the viewport and in the screenshot (the slot sits at the origin).
    expect(rep.film_strip).toHaveLength(1);
    expect(rep.film_strip[0].image.mime_type).toBe("image/jpeg");
    await expectImage(rep.film_strip[0].image);
    expect(rep.click_point).toEqual({ x: 150, y: 125, screenshot_x: 150, screenshot_y: 125, inside_screenshot: true });
    for (const id of ["meta_ad_size", "click_tag", "backup_ad", "zip_file_count", "allowed_file_types", "initial_load"]) {
      expect(rep.scan_results.tests[id], id).toMatchObject({ test: id, result: "passed" });
    }
    expect(rep.scan_results.report_url).toMatch(/\/r\//);
    const page = await (await fetch(rep.scan_results.report_url)).text();
    expect(page).toContain(`<h2 id="h-film-strip">Film strip</h2>`);
    expect(page).toContain(`<svg class="frame" viewBox="0 0 150 125"`);
    expect(page).toContain(`<circle class="ring" cx="150" cy="125"`);
    const stored = await fetch(`${stack.baseUrl}/v3/reports/${rep.job_id}`, { headers: { "x-apikey": key } });
    expect(await stored.text()).toBe(r.text);
  });

  itWithCorpus("scans every HTML5 banner of the corpus: missing files and unreachable CDNs are reported, not fatal", "html5", async (html5Corpus) => {
    const banners = corpusBanners(html5Corpus);
    expect(banners.length).toBeGreaterThan(5);
    // Two at a time, as a customer may have two scans in flight: the tag scanner's slots render them side by side.
    const queue = [...banners];
    const one = async ({ name, files }: (typeof banners)[number]) => {
      const r = await postJson(`${stack.baseUrl}/v2/scanZip`, { data: buildZip(files).toString("base64") }, key);
      if (!("index.html" in files)) {
        expect(r.status, name).toBe(400);
        expect(r.json.message, name).toMatch(/index\.html/);
        return;
      }
      expect(r.status, `${name}: ${r.text.slice(0, 300)}`).toBe(200);
      expect(r.json.file_structure.length, name).toBe(Object.keys(files).filter((f) => !/(^|\/)\.DS_Store$/.test(f)).length);
      // Every corpus banner loads something from the internet, which this machine cannot reach: the report says so.
      expect(r.json.has_external_assets, name).toBe(true);
      if (name.includes("missing-asset")) {
        expect(r.json.missing_assets.map((m: { url: string }) => m.url).join(" "), name).toMatch(/bg\.jpg/);
      }
    };
    await Promise.all([0, 1].map(async () => {
      for (let b = queue.shift(); b; b = queue.shift()) await one(b);
    }));
  }, 300_000);

  it("scans a VAST tag: XML, impressions, and the media file probed", async () => {
    const r = await postJson(`${stack.baseUrl}/v3/scanVAST`, { data: b64(`${origin}/vast.xml`), name: "e2e vast" }, key);
    expect(r.status, r.text).toBe(200);
    const rep = r.json;
    expect(rep).toMatchObject({ type: "inline", vast_version: "4.1", ad_system: "e2e", ad_title: "E2E ad", wrapper_redirects: 0, cors: true, name: "e2e vast" });
    expect(rep.xml.http_code).toBe(200);
    expect(Buffer.from(rep.xml.data_base64, "base64").toString()).toContain("<VAST");
    expect(rep.pixels.impression).toEqual([`${origin}/imp`]);
    expect(seen.some((s) => s.url === "/imp")).toBe(true);
    const mf = rep.creatives[0].mediafiles[0];
    expect(mf).toMatchObject({ http_code: 200, url: `${origin}/ad.mp4` });
    expect(mf.file_info.video).toMatchObject({ width: 640, height: 360, codec: "h264", dimensions: "640x360" });
    expect(mf.file_info.container.moov_atom_position).toBe("beginning");
    expect(mf.file_info.audio.loudness.lufs).toBeLessThan(0);
    for (const img of [mf.poster, mf.film_strip, rep.screenshot.highres]) await expectImage(img);
    expect(rep.ssl.non_secure_urls.length).toBeGreaterThan(0);
    expect(Object.keys(rep.scan_results.tests)).toEqual(expect.arrayContaining(["xml", "creative_0_mediafile_0"]));
    expect(rep.ads).toEqual([expect.objectContaining({ id: "1", type: "inline", creatives: [0], impressions: 1 })]);
    expect(rep.creatives[0].ad_index).toBe(0);
    if (corpusDir("vast/iab-vast-schemas")) {
      // The fixture lacks the 4.1 UniversalAdId and AdServingId: the IAB schema says where.
      expect(rep.schema_checks[0]).toMatchObject({ hop: 0, schema: "vast_4.1.xsd" });
      expect(rep.scan_results.tests.xml.xml_schema.message).toMatch(/line \d+/);
    }
  });

  it("runs a VAST's SIMID creative through the tag scanner's SIMID player harness (a SCAN_KIND_SIMID job)", async () => {
    const r = await postJson(`${stack.baseUrl}/v3/scanVAST`, { data: b64(`${origin}/simid-vast.xml`) }, key);
    expect(r.status, r.text).toBe(200);
    expect(r.json.simid).toEqual([expect.objectContaining({ url: `${origin}/simid.html`, ad_index: 0, run: true, session_created: true, init_resolved: true, start_resolved: true, errors: [], error: "" })]);
    expect(r.json.simid[0].messages.map((m: { type: string }) => m.type)).toEqual(["createSession", "SIMID:Creative:log", "resolve", "resolve"]);
    expect(r.json.simid[0].messages[1].detail).toBe("message: e2e-params");
    expect(r.json.scan_results.tests.xml.simid_handshake).toMatchObject({ result: "passed", actual: 0 });
  });

  it("answers an unreachable VAST URL with a payload_error naming host and cause, not charged; a dead wrapper hop is reported", async () => {
    const dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, "127.0.0.1", r));
    const deadPort = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const one = await stack.createKey("e2e-unreachable", 1);
    const r = await postJson(`${stack.baseUrl}/v3/scanVAST`, { data: b64(`http://127.0.0.1:${deadPort}/vast.xml`) }, one);
    expect(r.status, r.text).toBe(400);
    expect(r.json).toEqual({ error_type: "payload_error", message: `data: the VAST URL could not be loaded: connection to 127.0.0.1:${deadPort} refused (ECONNREFUSED)` });
    // Not charged: the key's only scan is still there.
    const ok = await postJson(`${stack.baseUrl}/v3/scanVAST`, { data: b64(`${origin}/dead-wrapper.xml?port=${deadPort}`) }, one);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.type).toBe("wrapper");
    expect(ok.json.wrapper_chain).toEqual([
      expect.objectContaining({ url: `${origin}/dead-wrapper.xml?port=${deadPort}`, http_code: 200, type: "wrapper", error: "" }),
      expect.objectContaining({ url: `http://127.0.0.1:${deadPort}/vast.xml`, http_code: 0, type: "unavailable", vast_version: "",
        error: `wrapper target 1 http://127.0.0.1:${deadPort}/vast.xml could not be fetched: connection to 127.0.0.1:${deadPort} refused (ECONNREFUSED)` }),
    ]);
    expect(ok.json.scan_results.tests.xml.wrapper_chain).toMatchObject({ result: "failed", message: expect.stringContaining(`hop 1 (http://127.0.0.1:${deadPort}/vast.xml): wrapper target 1`) });
  });

  it("refuses a VAST URL pointing at the metadata address with a payload_error, and stays healthy", async () => {
    const r = await postJson(`${stack.baseUrl}/v3/scanVAST`, { data: b64("http://169.254.169.254/latest/meta-data/") }, key);
    expect(r.status).toBe(400);
    expect(r.json.error_type).toBe("payload_error");
    expect(r.text).not.toMatch(/at .*\.ts:\d+/);
    const again = await postJson(`${stack.baseUrl}/v3/scanTag`, { data: b64("<p>still here</p>") }, key);
    expect(again.status).toBe(200);
  });

  // The image's processes (test/image.test.ts, "the built stack"), proved here when this stack runs the bundles — always
  // in `npm test`, which builds them first — instead of on a stack of its own (a stack start costs 30-40 s of CPU).
  it("runs every process from dist/ with plain node and scans an ad tag and a zip", async (ctx) => {
    if (!stack.built) return ctx.skip("this stack runs the sources (stale or no bundles): test/image.test.ts starts the built stack");
    await builtStackCase(stack, key);
  });

  // The web console and the CLI, on this stack (test/e2e/console-cases.ts).
  consoleAndCliCases(() => ({ stack, key, origin }));

  // Every scan kind above ran with the per-service NATS users: none of them needed a subject it is not given. The
  // one expected refusal is a worker trying to create the job stream before a requester did (it then waits).
  it("needed no NATS subject beyond each service's permissions", () => {
    const violations = stack.natsLog.filter((l) => /Violation/.test(l) && !/Publish Violation - User "[\w-]+", Subject "\$JS\.API\.STREAM\.CREATE\.SCANS"/.test(l));
    expect(violations).toEqual([]);
  });

  // The internal doors attacked on this stack (test/e2e/internal-doors-cases.ts): after the check above, since the
  // attacks make nats-server log violations on purpose.
  internalDoorsCases(() => stack);
});
