import type { EgressProxy, OutboundPolicy } from "@cva/platform";
import type { Browser, BrowserContext, CDPSession, Page, Target } from "puppeteer-core";
import { bounded } from "../util.ts";

/**
 * A consent run's page built ahead: its egress proxy, incognito context (popups closed), page (a renderer started)
 * and CDP session. What depends on the state and the creative (CMP script, headers, emulation, gatherers) is set when
 * a run takes it: a few CDP calls. Used once, closed after its run.
 */
export interface ConsentPage {
  proxy: EgressProxy;
  context: BrowserContext;
  page: Page;
  client: CDPSession;
}

/** A page built ahead is off every critical path: it may take this long (a loaded machine) before it is given up. */
const AHEAD_MS = 60_000;

/**
 * Builds one, its tab opened within `ms` (a renderer start: ~0.3 s idle, 7–14 s measured at load 44 — the run's own
 * deadline bounds it, not a fixed figure).
 */
export async function buildConsentPage(browser: Browser, startProxy: () => Promise<EgressProxy>, ms = AHEAD_MS): Promise<ConsentPage> {
  const proxy = await startProxy();
  let context: BrowserContext | undefined;
  try {
    context = await browser.createBrowserContext({ proxyServer: proxy.url, proxyBypassList: ["<-loopback>"], downloadBehavior: { policy: "deny" } });
    // Popups are closed at once, as in the full run's render phase.
    context.on("targetcreated", (t: Target) => {
      if (t.type() === "page" && t.opener()) void t.page().then((p) => p?.close().catch(() => {}), () => {});
    });
    const page = await bounded(context.newPage(), Math.max(0, ms), undefined);
    if (!page) throw new Error(`the browser did not open a page for a consent run in ${Math.round(ms / 1000)} s`);
    return { proxy, context, page, client: await page.createCDPSession() };
  } catch (err) {
    closeConsentPage({ proxy, context });
    throw err;
  }
}

/** Closed in the background: nobody waits for a context to close (a wedged one takes its 10 s). */
export function closeConsentPage(p: { proxy?: EgressProxy; context?: BrowserContext }): void {
  void (async () => {
    if (p.context) await bounded(p.context.close(), 10_000, undefined);
    if (p.proxy) await bounded(p.proxy.close(), 5_000, undefined);
  })();
}

/**
 * Consent pages prepared ahead, per browser, as the full run's pages are (warm-pages.ts): a scan whose creative must
 * be rendered under consent states takes them instead of starting renderers on its critical path. Kept only where
 * they were needed: the first scan on a browser that renders a state builds its own and asks for a set to be made for
 * the next one (`refill`, called when its runs are over), so a worker whose creatives never look for consent holds no
 * idle renderer for them.
 */
export function createConsentPages(opts: { perBrowser: number; build(browser: Browser, startProxy: () => Promise<EgressProxy>): Promise<ConsentPage> }) {
  const ready = new Map<Browser, Array<Promise<ConsentPage | undefined>>>();
  let closed = false;
  return {
    /** Up to `n` pages ready (or being built) for this browser. */
    take(browser: Browser, n: number): Array<Promise<ConsentPage | undefined>> {
      const l = ready.get(browser) ?? [];
      return l.splice(0, n);
    },
    /** Builds pages on the browser until `perBrowser` wait there. */
    refill(browser: Browser, startProxy: (policy: OutboundPolicy) => Promise<EgressProxy>, policy: OutboundPolicy): void {
      if (closed || !browser.connected) return;
      for (const [b, l] of ready) if (!b.connected) { ready.delete(b); for (const p of l) void p.then((x) => x && closeConsentPage(x)); }
      let l = ready.get(browser);
      if (!l) ready.set(browser, (l = []));
      while (l.length < opts.perBrowser) l.push(opts.build(browser, () => startProxy(policy)).catch(() => undefined));
    },
    async close(): Promise<void> {
      closed = true;
      const all = [...ready.values()].flat();
      ready.clear();
      await Promise.all(all.map((p) => bounded(p.then((x) => { if (x) closeConsentPage(x); }), 10_000, undefined)));
    },
  };
}

export type ConsentPages = ReturnType<typeof createConsentPages>;
