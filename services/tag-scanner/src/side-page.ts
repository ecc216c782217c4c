import type { EgressProxy } from "@cva/platform";
import type { Browser, BrowserContext, CDPSession, Page, Target } from "puppeteer-core";
import { bounded } from "./util.ts";

/**
 * A page beside a scan's own — a consent state's run, the heavy-ad run, a SIMID harness — with nothing shared with it:
 * its own egress proxy, incognito context (downloads denied, popups closed at once as in the render phase), page (a
 * renderer started) and CDP session. What depends on the run (scripts, headers, emulation, gatherers) is set by its
 * user. Used once, then closed.
 */
export interface SidePage {
  proxy: EgressProxy;
  context: BrowserContext;
  page: Page;
  client: CDPSession;
}

/** Opens one, its tab within `ms` (a renderer start: ~0.3 s idle, 7–14 s measured at load 44); `what` names it in the error. */
export async function openSidePage(browser: Browser, startProxy: () => Promise<EgressProxy>, ms: number, what: string): Promise<SidePage> {
  const proxy = await startProxy();
  let context: BrowserContext | undefined;
  try {
    context = await browser.createBrowserContext({ proxyServer: proxy.url, proxyBypassList: ["<-loopback>"], downloadBehavior: { policy: "deny" } });
    context.on("targetcreated", (t: Target) => {
      if (t.type() === "page" && t.opener()) void t.page().then((p) => p?.close().catch(() => {}), () => {});
    });
    const page = await bounded(context.newPage(), Math.max(0, ms), undefined);
    if (!page) throw new Error(`the browser did not open a page for ${what} in ${Math.round(ms / 1000)} s`);
    return { proxy, context, page, client: await page.createCDPSession() };
  } catch (err) {
    closeSidePage({ proxy, context });
    throw err;
  }
}

/** Closed in the background: nobody waits for a context to close (a wedged one takes its 10 s). */
export function closeSidePage(p: { proxy?: EgressProxy; context?: BrowserContext }): void {
  void (async () => {
    if (p.context) await bounded(p.context.close(), 10_000, undefined);
    if (p.proxy) await bounded(p.proxy.close(), 5_000, undefined);
  })();
}
