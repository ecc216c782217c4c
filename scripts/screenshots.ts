// The README's pictures (issue 26 §5): the web console at `/` with a tag filled in, and the report page of that tag
// scanned through the console, as a person would. Runs the real product as the end-to-end tests do (test/harness
// stack.ts: its own NATS, the edge and the tag scanner on free ports), a banner of ours that animates and links to a
// landing page served here on 127.0.0.1, and the installed Chromium through puppeteer-core. Writes docs/img/*.png.
//
//   npm run screenshots            (CHROMIUM=/path/to/chromium to use another browser)
//
// Nothing leaves the machine; the stack stops at the end. The pictures are 1 CSS px per pixel at a 1100 px wide
// viewport, each of a part of the page (the report in two: its top, then its animation and film strip), so each stays
// under 200 KB (checked).
import { mkdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { repoRoot, startStack } from "../test/harness/stack.ts";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const OUT = join(repoRoot, "docs", "img");
const WIDTH = 1100;
/** Generous bounds: a scan takes seconds, a loaded 2-core machine ten times that. */
const SCAN_WAIT_MS = 180_000;

/** A 300x250 banner of ours: a headline, a sun that rises, a call to action that slides in; the whole ad links out. */
function banner(landingUrl: string): string {
  return `<a href="${landingUrl}" target="_blank" style="display:block;width:300px;height:250px;text-decoration:none">
<div id="ad" style="position:relative;width:300px;height:250px;overflow:hidden;background:linear-gradient(160deg,#0b3d91,#1e88e5);font-family:sans-serif;color:#fff">
<style>
@keyframes rise { from { transform: translateY(140px); } to { transform: translateY(0); } }
@keyframes slide { from { transform: translateX(-220px); } to { transform: translateX(0); } }
@keyframes fade { from { opacity: 0; } to { opacity: 1; } }
#sun { position: absolute; right: 24px; top: 24px; width: 64px; height: 64px; border-radius: 50%; background: #ffd54f; animation: rise 1.6s ease-out both; }
#h1 { position: absolute; left: 20px; top: 96px; font-size: 30px; font-weight: bold; animation: fade 0.8s 0.4s both; }
#h2 { position: absolute; left: 20px; top: 136px; font-size: 17px; animation: fade 0.8s 0.9s both; }
#cta { position: absolute; left: 20px; top: 186px; padding: 10px 18px; border-radius: 4px; background: #ffd54f; color: #0b3d91; font-weight: bold; animation: slide 0.9s 1.4s ease-out both; }
</style>
<div id="sun"></div><div id="h1">Spring sale</div><div id="h2">Up to 40 % off, this week only</div><div id="cta">Shop now</div>
</div></a>`;
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const landing = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><title>Spring sale</title><body style="font-family:sans-serif;margin:40px">
<h1>Spring sale</h1><p>Up to 40 % off, this week only.</p></body></html>`);
  });
  await new Promise<void>((r) => landing.listen(0, "127.0.0.1", r));
  const landingUrl = `http://127.0.0.1:${(landing.address() as AddressInfo).port}/spring`;
  const stack = await startStack({ only: ["auth", "report-store", "tag-scanner", "edge"], waitForWorkers: ["tag"] });
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
  try {
    const key = await stack.createKey("readme-screenshots");
    const page = await browser.newPage();
    page.setDefaultTimeout(SCAN_WAIT_MS);
    await page.setViewport({ width: WIDTH, height: 900 });
    await page.goto(`${stack.baseUrl}/`, { waitUntil: "load" });
    await page.waitForFunction(() => document.getElementById("endpoint")?.textContent !== "");
    await page.type("#api-key", key);
    await page.click('input[name="source"][value="tag"]');
    // The tag goes in as pasted (typing 1 700 characters one by one is slow and shows the same).
    await page.$eval("#tag", (el, tag) => {
      (el as HTMLTextAreaElement).value = tag;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }, banner(landingUrl));
    await page.type("#name", "Spring sale");
    await page.$eval("#name", (el) => (el as HTMLInputElement).blur());
    await write(page, "console.png", null, "#scan");

    // Scanned from the console, as a person would: it shows progress, then opens the report page.
    await Promise.all([page.waitForNavigation({ waitUntil: "load", timeout: SCAN_WAIT_MS }), page.click("#scan")]);
    if (!/\/r\/[A-Za-z0-9_-]+$/.test(new URL(page.url()).pathname)) throw new Error(`the console did not open a report page: ${page.url()}`);
    await page.evaluate(async () => {
      await Promise.all(Array.from(document.images).map((i) => (i.complete ? undefined : new Promise((r) => { i.onload = i.onerror = r; }))));
    });
    // The top of the report (verdict, figures, screenshots with the click ring), then its animation and film strip.
    await write(page, "report.png", null, "#looks");
    await write(page, "report-film-strip.png", "#animation", "#film-strip");
    await page.close();
  } finally {
    await browser.close();
    await stack.stop();
    landing.close();
  }
}

/**
 * A PNG of part of the page, from the top of the element `from` (or the page's top) to the bottom of `to` (or the
 * page's end), at most 1 400 px tall.
 */
async function write(page: import("puppeteer-core").Page, name: string, from: string | null, to: string | null): Promise<void> {
  const file = join(OUT, name);
  const clip = await page.evaluate((a, b) => {
    const top = a ? document.querySelector(a)!.getBoundingClientRect().top + window.scrollY - 12 : 0;
    const bottom = b ? document.querySelector(b)!.getBoundingClientRect().bottom + window.scrollY + 12 : document.documentElement.scrollHeight;
    return { y: Math.max(0, Math.floor(top)), height: Math.min(1_400, Math.ceil(bottom - top)) };
  }, from, to);
  await page.screenshot({ path: file, clip: { x: 0, y: clip.y, width: WIDTH, height: clip.height }, captureBeyondViewport: true });
  const kb = Math.round(statSync(file).size / 1024);
  console.log(`${file}: ${WIDTH}x${clip.height}, ${kb} KB`);
  if (kb >= 200) throw new Error(`${name} is ${kb} KB: keep the README's pictures under 200 KB`);
}

main().then(() => process.exit(0), (err: unknown) => {
  console.error(err);
  process.exit(1);
});
