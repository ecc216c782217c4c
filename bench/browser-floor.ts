// The floor of any tag scan: the same creative loaded and screenshotted in an already running Chromium — a new
// incognito context, the page set, the creative's box captured, the context closed. Launched with the tag scanner's
// own flags and sandbox, so the only difference left is everything a scan measures on top.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContextOptions } from "puppeteer-core";
import { launchChromium } from "@cva/tag-scanner/browser-pool.ts";
import { sandboxPlan } from "@cva/tag-scanner/sandbox.ts";

export interface FloorBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchFloorBrowser(): Promise<FloorBrowser> {
  const sandbox = sandboxPlan(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium");
  const userDataDir = mkdtempSync(join(tmpdir(), "cva-bench-chromium-"));
  mkdirSync(join(userDataDir, "Default"));
  writeFileSync(join(userDataDir, "Default", "Preferences"), "{}");
  const { browser, netns } = await launchChromium(sandbox, userDataDir);
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      netns?.close();
      // A Chromium helper can still be writing into the profile after close (ENOTEMPTY seen at load 30): the table is
      // printed already, so a leftover temp folder must not fail the run.
      try {
        rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
      } catch (err) {
        process.stderr.write(`left ${userDataDir}: ${(err as Error).message}\n`);
      }
    },
  };
}

/** One floor "scan", ms: new context, page, content loaded, screenshot of the creative's box, context closed. */
export async function floorScan(browser: Browser, html: string, box: { width: number; height: number }, contextOptions?: BrowserContextOptions): Promise<number> {
  const t = performance.now();
  const context = await browser.createBrowserContext(contextOptions);
  try {
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: "load" });
    await page.screenshot({ type: "png", clip: { x: 0, y: 0, ...box } });
  } finally {
    await context.close();
  }
  return performance.now() - t;
}
