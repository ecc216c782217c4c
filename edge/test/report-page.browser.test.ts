import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { create } from "@bufbuild/protobuf";
import { ClickPointSchema, CookieSchema, DialogSchema, FilmStripFrameSchema, StorageItemSchema, type TagReport, VastLintFindingSchema, type VastReport, type ZipReport } from "@cva/contracts";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeApp, TAG, VAST, ZIP } from "./fakes.ts";

// The report page and /docs in a real browser: one Chromium, one page per report kind. What a person sees — the
// verdict with its reasons, the images, the waterfall, words and numbers that do not break — what the browser
// enforces (the CSP: no script of the creative runs, no violation by our own markup), and axe-core's accessibility
// rules.

const CHROMIUM = "/usr/bin/chromium";
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const HOSTILE = "<script>window.pwned=1</script>";
const HOSTILE_IMG = "<img src=x onerror=window.pwned=2>";
/** Bounds, not expectations: each page takes a few seconds; a loaded 2-core machine can take ten times that. */
const PAGE_TEST_MS = 120_000;
const UI_WAIT_MS = 60_000;

/** A solid-colour PNG of w×h: real pictures for the page's <img> elements to decode. */
function png(w: number, h: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3).map((_, i) => rgb[i % 3]!)]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

/** Hostile strings where a creative controls them: its console, a cookie, local storage, a dialog, the scan's name. */
function hostileTag(r: TagReport): void {
  r.console!.errors.push(`Uncaught ${HOSTILE}`);
  r.cookies.push(create(CookieSchema, { ...r.cookies[0]!, name: HOSTILE_IMG, value: `"><svg onload=window.pwned=3>` }));
  r.localStorage.push(create(StorageItemSchema, { key: HOSTILE, value: "javascript:alert(1)" }));
  r.dialogs.push(create(DialogSchema, { type: "alert", message: HOSTILE }));
}

interface Loaded {
  page: Page;
  csp: string;
  violations: string[];
  offOrigin: string[];
}

describe.skipIf(!existsSync(CHROMIUM))("report page and /docs in headless Chromium", () => {
  let browser: Browser;
  let ctx: Awaited<ReturnType<typeof makeApp>>;
  let base: string;
  const shots = mkdtempSync(path.join(tmpdir(), "cva-report-page-"));

  beforeAll(async () => {
    // publicBaseUrl must be the listening address so image URLs in the report resolve; known only after listen,
    // so listen first on a free port, then rebuild with the real base.
    const probe = await makeApp();
    await probe.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (probe.app.server.address() as { port: number }).port;
    await probe.app.close();
    base = `http://127.0.0.1:${port}`;
    ctx = await makeApp({ config: { ...probe.deps.config, publicBaseUrl: base } });
    const images: Array<[string, Buffer]> = [
      ["shot1", png(300, 250, [200, 30, 30])], ["thumb1", png(120, 100, [200, 30, 30])], ["lp1", png(640, 400, [30, 90, 200])],
      ["poster1", png(320, 180, [20, 120, 60])], ["film1", png(800, 45, [90, 90, 90])], ["wave1", png(800, 80, [240, 240, 240])],
      ["vshot", png(320, 180, [20, 120, 60])], ["vthumb", png(160, 90, [20, 120, 60])],
      ["zframe0", png(320, 180, [250, 250, 250])], ["zframe1", png(320, 180, [0, 160, 0])],
    ];
    for (const [id, data] of images) ctx.store.artifacts.set(id, { data, mimeType: "image/png" });
    await ctx.app.listen({ port, host: "127.0.0.1" });
    browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
  });

  afterAll(async () => {
    await browser?.close();
    await ctx?.app.close();
  });

  async function scan(path: string, data: string, name: string): Promise<string> {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "x-apikey": "key-a", "content-type": "application/json" },
      body: JSON.stringify({ data, name }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { scan_results: { report_url: string } }).scan_results.report_url;
  }

  /** Opens a URL, recording CSP violations (reported by the browser itself) and any request off our origin. */
  async function open(url: string, viewport = { width: 1280, height: 900 }): Promise<Loaded> {
    const page = await browser.newPage();
    page.setDefaultTimeout(UI_WAIT_MS);
    await page.setViewport(viewport);
    const offOrigin: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith("data:")) offOrigin.push(r.url());
    });
    page.on("dialog", async (d) => {
      offOrigin.push(`dialog: ${d.message()}`);
      await d.dismiss();
    });
    await page.evaluateOnNewDocument(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener("securitypolicyviolation", (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const res = await page.goto(url, { waitUntil: "load" });
    expect(res?.status()).toBe(200);
    const violations = await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
    return { page, csp: res!.headers()["content-security-policy"] ?? "", violations, offOrigin };
  }

  /** axe-core, evaluated over CDP (the page's CSP admits no script of ours, rightly). */
  async function axe(page: Page): Promise<string[]> {
    await page.evaluate(AXE_SOURCE);
    const result = await page.evaluate(async () => {
      const a = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
      return a.run(document, { resultTypes: ["violations"] });
    });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 20).map((n) => n.target.join(" ")).join(", ")})`);
  }

  /**
   * Elements whose text the browser laid out on more than one line: those matching the selector (result words, flags,
   * numeric cells), and every element whose whole text is a number with its unit ("1.75 s", "300x250 px").
   */
  async function wrapped(page: Page, selector: string): Promise<string[]> {
    return page.evaluate((sel) => {
      const out: string[] = [];
      const numberWithUnit = /^-?[\d.,x]+\s(B|KB|MB|GB|ms|s|%|px|LUFS|LU|kbps|Mbps|Hz|kHz|fps|MB\/s)$/;
      const leaves = Array.from(document.querySelectorAll("body *")).filter((e) => e.children.length === 0 && numberWithUnit.test((e.textContent ?? "").trim()));
      for (const el of [...Array.from(document.querySelectorAll(sel)), ...leaves]) {
        const range = document.createRange();
        range.selectNodeContents(el);
        const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) out.push(el.textContent ?? "");
      }
      return out;
    }, selector);
  }

  /** The page's text, no-break spaces (between a number and its unit) read as spaces. */
  const bodyText = async (page: Page) => (await page.evaluate(() => document.body.innerText)).replace(/\u00a0/g, " ");

  async function imagesLoaded(page: Page, selector: string): Promise<number> {
    return page.evaluate(async (sel) => {
      const imgs = Array.from(document.querySelectorAll(sel)) as HTMLImageElement[];
      await Promise.all(imgs.map((i) => (i.complete ? undefined : new Promise((r) => { i.onload = i.onerror = r; }))));
      return imgs.filter((i) => i.naturalWidth > 0).length;
    }, selector);
  }

  const save = async (page: Page, name: string) => {
    const file = path.join(shots, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  };

  it("tag report: verdict with reasons, screenshots, timeline, waterfall, tables; hostile strings stay text; strict CSP; axe clean", async () => {
    ctx.dispatcher.editReport = (r) => hostileTag(r as TagReport);
    const url = await scan("/v3/scanTag", TAG, `Spring ${HOSTILE}`);
    ctx.dispatcher.editReport = undefined;
    const { page, csp, violations, offOrigin } = await open(url);

    expect(csp).toBe(`default-src 'none'; style-src 'self'; img-src 'self' ${base}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`);
    expect(violations).toEqual([]);
    expect(offOrigin).toEqual([]);

    const text = await bodyText(page);
    // The verdict: failed, the counts, each failed test with its reason in plain words, before the passed ones.
    const verdict = await page.$eval("#h-verdict", (e) => e.textContent);
    expect(verdict).toBe("Failed");
    // The counts are the tests' own: as many as the results table lists (spec set 0 grows; the five this creative
    // fails by construction stay failed).
    const counts = /(\d+) failed\s+(\d+) passed\s+(\d+) not evaluated/.exec((await page.$eval(".verdict .counts", (e) => e.textContent)) ?? "");
    expect(counts).not.toBeNull();
    const [failed, passed, unjudged] = counts!.slice(1).map(Number) as [number, number, number];
    expect(failed).toBeGreaterThanOrEqual(5);
    expect(failed + passed + unjudged).toBe(await page.$$eval("table.tests tbody tr", (r) => r.length));
    const findings = await page.$$eval(".verdict .findings li", (els) => els.map((e) => e.textContent ?? ""));
    expect(findings[0]).toMatch(/^failed Blocked by AdBlock\s*yes, but expected not blocked by ad blockers$/);
    expect(findings.some((f) => f.includes("1, but expected no missing assets"))).toBe(true);
    expect(findings.at(-1)).toContain("not evaluated");
    const resultOrder = await page.$$eval("table.tests td:first-child", (tds) => tds.map((t) => t.textContent));
    expect(resultOrder.indexOf("passed")).toBeGreaterThan(resultOrder.lastIndexOf("failed"));

    // Numbers with units and sensible precision, yes/no for flags.
    expect(text).toContain("5.1 %");
    expect(text).not.toMatch(/\d\.\d{4,}/);
    expect(text).toMatch(/Likely blocked by ad blockers\s+yes/);
    expect(text).toMatch(/Memory\s+1\.05 MB/);
    expect(text).toMatch(/First paint\s+250 ms/);

    // The images, the animation timeline and the network waterfall.
    expect(await imagesLoaded(page, "img.shot")).toBe(2);
    expect(await page.$eval("img.shot", (i) => i.getAttribute("alt"))).toBe("Screenshot of the creative as rendered");
    expect(text).toMatch(/End of motion\s+1\.75 s after the tag started loading/);
    expect(await page.$$eval("svg.tl rect.motion", (r) => r.length)).toBe(1);
    const rows = await page.$$eval("table.waterfall tbody tr", (trs) => trs.map((t) => t.textContent ?? ""));
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain("http://pixel.example/p.gif");
    expect(rows[1]).toContain("not secure");
    expect(rows[1]).toContain("pixel.example");
    expect(await page.$$eval("table.waterfall svg.wf rect.insecure", (r) => r.length)).toBe(1);
    // The JSON view gives each request's start (network.responses[].started): a real waterfall, on one time axis.
    expect(text).not.toContain("but not when it started");
    expect(text).toMatch(/Waterfall \(0 –/);

    // Cookies and storage as tables; hostile strings shown as text, never run.
    expect(await page.$$eval("#cookies tbody tr", (r) => r.length)).toBe(3);
    expect(text).toContain(HOSTILE_IMG);
    expect(text).toContain(`Spring ${HOSTILE}`);
    expect(text).toContain(`Uncaught ${HOSTILE}`);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.evaluate(() => document.querySelectorAll("script, [onerror], [onload], svg image, iframe, style, [style]").length)).toBe(0);

    expect(await axe(page)).toEqual([]);
    console.log(`report page screenshot: ${await save(page, "tag")}`);

    // Printable: the print stylesheet hides the navigation, and the browser makes a PDF of it.
    await page.emulateMediaType("print");
    expect(await page.$eval(".toc", (e) => getComputedStyle(e).display)).toBe("none");
    const pdf = await page.pdf({ format: "A4" });
    expect(Buffer.from(pdf).subarray(0, 5).toString()).toBe("%PDF-");
    writeFileSync(path.join(shots, "tag.pdf"), pdf);
    await page.close();

    // On a phone's width nothing that is one word or one number breaks: results, values with units, flags.
    const narrow = await open(url, { width: 375, height: 800 });
    expect(await wrapped(narrow.page, ".badge, td.num, .flag, .tag, table.kv th")).toEqual([]);
    // …and the page fits the phone: wide tables scroll inside their box, the page itself does not.
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    // A table scrolling in its box is reachable by keyboard (each box a named region in the tab order): axe clean here too.
    expect(await narrow.page.$$eval(".scroll", (els) => els.some((e) => e.scrollWidth > e.clientWidth))).toBe(true);
    expect(await axe(narrow.page)).toEqual([]);
    await narrow.page.close();
  }, PAGE_TEST_MS);

  it("VAST report: media file with poster, film strip, loudness and waveform; verdict; axe clean", async () => {
    // A lint finding with a long XPath (no break opportunity in it but its slashes' neighbours).
    ctx.dispatcher.editReport = (r) => {
      (r as VastReport).lint.push(create(VastLintFindingSchema, {
        rule: "vast.universal-ad-id.ad-id-registry.recommended", severity: "warning", message: "idRegistry is not a known registry",
        path: "/VAST/Ad[1]/InLine/Creatives/Creative[1]/UniversalAdId[1]/VeryLongElementNameWithoutBreaks[1]/AnotherOne[1]", line: 1, hop: 0,
      }));
    };
    const url = await scan("/v3/scanVAST", VAST, "Spring video");
    ctx.dispatcher.editReport = undefined;
    const { page, violations, offOrigin } = await open(url);
    expect(violations).toEqual([]);
    expect(offOrigin).toEqual([]);
    expect(await page.$eval("#h-verdict", (e) => e.textContent)).toBe("Failed");
    const findings = await page.$$eval(".verdict .findings li", (els) => els.map((e) => e.textContent ?? ""));
    expect(findings[0]).toMatch(/^failed SSL VAST document\s*no, but expected all URLs use https$/);
    expect(findings[1]).toContain("creative 1 (Linear): no MediaFile");
    expect(await imagesLoaded(page, ".media img.poster, .media img.strip, .media img.wave")).toBe(3);
    const text = await bodyText(page);
    expect(text).toContain("-23.1 LUFS integrated, range 4.2 LU");
    expect(text).toMatch(/Bit rate\s+1\.9 Mbps/);
    expect(text).toMatch(/File size\s+5 MB/);
    expect(text).toMatch(/Sample rate\s+48 kHz/);
    expect(text).toContain("Nothing to play: no media file and no overlay.");
    expect(await wrapped(page, ".badge, td.num, .flag")).toEqual([]);
    expect(await axe(page)).toEqual([]);
    console.log(`VAST report page screenshot: ${await save(page, "vast")}`);
    // Printed, nothing runs off the paper's edge: a lint finding's XPath breaks inside its cell (a scrolling box on
    // screen is cut off on paper).
    await page.emulateMediaType("print");
    await page.setViewport({ width: 720, height: 1000 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(720);
    await page.close();
  }, PAGE_TEST_MS);

  it("zip report: files, images and the zip facts; its render's film strip and click ring; axe clean", async () => {
    // The render as the zip analyzer returns it (the entry framed at ad.size): two frames and where it clicked.
    ctx.dispatcher.editReport = (r) => {
      const render = (r as ZipReport).render!;
      render.filmStrip = [
        create(FilmStripFrameSchema, { image: { id: "zframe0", bytes: 100n, mimeType: "image/png", color: "" }, timeMs: 420n }),
        create(FilmStripFrameSchema, { image: { id: "zframe1", bytes: 100n, mimeType: "image/png", color: "" }, timeMs: 2450n }),
      ];
      render.clickPoint = create(ClickPointSchema, { x: 150, y: 125, screenshotX: 150, screenshotY: 125, insideScreenshot: true });
    };
    const url = await scan("/v3/scanZip", ZIP, "Zip banner");
    ctx.dispatcher.editReport = undefined;
    const { page, violations } = await open(url);
    expect(violations).toEqual([]);
    const text = await bodyText(page);
    expect(text).toContain("HTML5 zip report");
    expect(text).toMatch(/Backup image\s+yes backup\.jpg/);
    expect(await page.$$eval("#files tbody tr", (r) => r.length)).toBe(2);
    expect(text).toMatch(/img\/a\.png\s+5 KB\s+3 KB\s+40 %/);
    // The film strip: both frames drawn, each with its time; the ring over the screenshot at the click point.
    // Each cropped to the creative's box (at the viewport's origin: the slot page frames the zip there), its picture
    // drawn: an SVG <image> of the frame at its own size under a viewBox of the box at half resolution.
    expect(await page.$$eval("#film-strip svg.frame", (f) => f.map((e) => e.getAttribute("viewBox")))).toEqual(["0 0 150 125", "0 0 150 125"]);
    await page.waitForFunction(() => Array.from(document.querySelectorAll("#film-strip svg.frame image")).every((i) => (i as SVGImageElement).getBBox().width === 320));
    expect(await page.$$eval("#film-strip figcaption", (f) => f.map((e) => (e.textContent ?? "").replace(/\u00a0/g, " ")))).toEqual(["420 ms", "2.45 s"]);
    const ring = await page.$eval(".shot-wrap svg.click circle.ring", (c) => [c.getAttribute("cx"), c.getAttribute("cy")]);
    expect(ring).toEqual(["150", "125"]);
    expect(text).toContain("the ring is where the scanner clicked");
    expect(await axe(page)).toEqual([]);
    await save(page, "zip");
    await page.close();
  }, PAGE_TEST_MS);

  it("/docs: Swagger UI from our origin under a strict CSP, try it out against the API, axe clean", async () => {
    const { page, csp, violations, offOrigin } = await open(`${base}/docs`);
    expect(csp).toBe(`default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ${base}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`);
    await page.waitForSelector(".opblock", { timeout: UI_WAIT_MS });
    const ops = await page.$$eval(".opblock .opblock-summary-path", (els) => els.map((e) => e.textContent ?? ""));
    expect(ops).toEqual(expect.arrayContaining(["/v3/scanTag", "/v3/scanVAST", "/v3/reports/{job_id}"]));
    // Grouped as a reader looks for them, scans first; nothing left in Swagger UI's "default".
    const groups = await page.$$eval(".opblock-tag-section .opblock-tag", (els) => els.map((e) => e.getAttribute("data-tag") ?? ""));
    expect(groups[0]).toBe("Scans");
    expect(groups).toEqual(expect.arrayContaining(["Reports", "Service"]));
    expect(groups).not.toContain("default");
    // A parameter's name stays on one line ("Idempotency-Key" used to break at its hyphen).
    const op0 = await page.waitForSelector("#operations-Scans-scanTagV3 .opblock-summary-control", { timeout: UI_WAIT_MS });
    await op0!.click();
    const name = await page.waitForSelector("#operations-Scans-scanTagV3 .parameter__name", { timeout: UI_WAIT_MS });
    expect(await name!.evaluate((e) => [e.textContent?.trim(), e.getClientRects().length === 1 && e.getBoundingClientRect().height < 30])).toEqual(["Idempotency-Key", true]);

    // Try it out: the stored report of a scan, fetched by Swagger UI with the key given to it.
    const jobUrl = await scan("/v3/scanTag", TAG, "for docs");
    const token = jobUrl.split("/r/")[1]!;
    const jobId = ctx.store.reports.find((r) => r.pageToken === token)!.jobId;
    await page.evaluate(() => (window as unknown as { ui: { preauthorizeApiKey: (n: string, k: string) => void } }).ui.preauthorizeApiKey("ApiKey", "key-a"));
    const op = await page.waitForSelector("#operations-Reports-getReport .opblock-summary-control", { timeout: UI_WAIT_MS });
    await op!.click();
    await (await page.waitForSelector("#operations-Reports-getReport .try-out__btn", { timeout: UI_WAIT_MS }))!.click();
    await page.type("#operations-Reports-getReport input[placeholder='job_id']", jobId);
    await (await page.waitForSelector("#operations-Reports-getReport .execute", { timeout: UI_WAIT_MS }))!.click();
    const status = await page.waitForSelector("#operations-Reports-getReport .live-responses-table tbody .response-col_status", { timeout: UI_WAIT_MS });
    expect((await status!.evaluate((e) => e.textContent ?? "")).trim()).toBe("200");

    expect(violations).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
    expect(offOrigin).toEqual([]);
    expect(await axe(page)).toEqual([]);
    await save(page, "docs");
    await page.close();
  }, PAGE_TEST_MS);

  it("assets: cached for a year, gzipped when asked", async () => {
    const html = await (await fetch(`${base}/docs`)).text();
    const bundle = /src="(docs\/assets\/swagger-ui-[^"]+\/swagger-ui-bundle\.js)"/.exec(html)![1]!;
    const res = await fetch(`${base}/${bundle}`, { headers: { "accept-encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  });
});
