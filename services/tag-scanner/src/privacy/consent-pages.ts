import type { EgressProxy, OutboundPolicy } from "@cva/platform";
import type { Browser } from "puppeteer-core";
import { closeSidePage, openSidePage, type SidePage } from "../side-page.ts";
import { bounded } from "../util.ts";

/**
 * A consent run's page built ahead (side-page.ts): what depends on the state and the creative (CMP script, headers,
 * emulation, gatherers) is set when a run takes it — a few CDP calls.
 */
export type ConsentPage = SidePage;

/** A page built ahead is off every critical path: it may take this long (a loaded machine) before it is given up. */
const AHEAD_MS = 60_000;

/** Builds one, its tab opened within `ms` (the run's own deadline bounds it when built on the run's path). */
export function buildConsentPage(browser: Browser, startProxy: () => Promise<EgressProxy>, ms = AHEAD_MS): Promise<ConsentPage> {
  return openSidePage(browser, startProxy, ms, "a consent run");
}

export { closeSidePage as closeConsentPage };

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
      for (const [b, l] of ready) if (!b.connected) { ready.delete(b); for (const p of l) void p.then((x) => x && closeSidePage(x)); }
      let l = ready.get(browser);
      if (!l) ready.set(browser, (l = []));
      while (l.length < opts.perBrowser) l.push(opts.build(browser, () => startProxy(policy)).catch(() => undefined));
    },
    async close(): Promise<void> {
      closed = true;
      const all = [...ready.values()].flat();
      ready.clear();
      await Promise.all(all.map((p) => bounded(p.then((x) => { if (x) closeSidePage(x); }), 10_000, undefined)));
    },
  };
}

export type ConsentPages = ReturnType<typeof createConsentPages>;
