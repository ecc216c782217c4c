import { existsSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeApp, TAG } from "./fakes.ts";

const CHROMIUM = "/usr/bin/chromium";
// A 1x1 PNG, served as the screenshot artifact so the page shows a real image.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

describe.skipIf(!existsSync(CHROMIUM))("report page in headless Chromium", () => {
  let browser: Browser;
  let ctx: Awaited<ReturnType<typeof makeApp>>;
  let base: string;

  beforeAll(async () => {
    // publicBaseUrl must be the listening address so image URLs in the report resolve; known only after listen,
    // so listen first on a free port, then rebuild with the real base.
    const probe = await makeApp();
    await probe.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (probe.app.server.address() as { port: number }).port;
    await probe.app.close();
    base = `http://127.0.0.1:${port}`;
    ctx = await makeApp({ config: { ...probe.deps.config, publicBaseUrl: base } });
    ctx.store.artifacts.set("shot1", { data: PNG, mimeType: "image/png" });
    await ctx.app.listen({ port, host: "127.0.0.1" });
    browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
  });

  afterAll(async () => {
    await browser?.close();
    await ctx?.app.close();
  });

  it("renders verdict, key fields, tests and network, with the screenshot, and runs no creative script", async () => {
    const res = await fetch(`${base}/v3/scanTag`, {
      method: "POST",
      headers: { "x-apikey": "key-a", "content-type": "application/json" },
      body: JSON.stringify({ data: TAG, name: "Spring <script>window.pwned=1</script>" }),
    });
    expect(res.status).toBe(200);
    const report = (await res.json()) as { scan_results: { report_url: string } };
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on("dialog", async (d) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    await page.goto(report.scan_results.report_url, { waitUntil: "load" });
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain("Ad tag report");
    expect(text).toContain("1 failed, 1 passed");
    expect(text).toContain("Spring <script>window.pwned=1</script>");
    expect(text).toContain("300x250");
    expect(text).toContain("Initial load size");
    expect(text).toContain("https://example.com/ad.js");
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.evaluate(() => document.querySelectorAll("script").length)).toBe(0);
    expect(dialogs).toEqual([]);
    const imgOk = await page.evaluate(() => {
      const img = document.querySelector("img.shot") as HTMLImageElement | null;
      return img !== null && img.complete && img.naturalWidth === 1;
    });
    expect(imgOk).toBe(true);
    const shot = path.join(mkdtempSync(path.join(tmpdir(), "cva-report-page-")), "report-page.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`report page screenshot: ${shot}`);
    await page.close();
  });
});
