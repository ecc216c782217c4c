import type { Browser } from "puppeteer-core";
import type { PreparedPage } from "./prepared-page.ts";
import { bounded } from "./util.ts";

/**
 * Pages prepared ahead of the scans that will use them, per browser: a slot that finishes a scan starts preparing
 * the next one, so context, proxy, page, CDP domains and instrumentation are ready when a job arrives. A page is
 * used once. A preparation that fails, or whose browser died meanwhile, is dropped and the scan prepares its own.
 */
export function createWarmPages(opts: { prepare(browser: Browser): Promise<PreparedPage>; perBrowser: number }) {
  const ready = new Map<Browser, Array<Promise<PreparedPage | undefined>>>();
  let closed = false;
  const list = (b: Browser) => {
    let l = ready.get(b);
    if (!l) ready.set(b, (l = []));
    return l;
  };
  return {
    /** A prepared page for this browser (waiting for one already under way), or undefined. */
    async take(browser: Browser): Promise<PreparedPage | undefined> {
      const l = ready.get(browser);
      while (l && l.length > 0) {
        const p = await l.shift()!;
        if (p && browser.connected) return p;
        if (p) void p.dispose();
      }
      return undefined;
    },
    /** Prepares pages for this browser until it has `perBrowser` waiting. */
    refill(browser: Browser): void {
      if (closed || !browser.connected) return;
      for (const [b, l] of ready) if (!b.connected) { ready.delete(b); for (const p of l) void p.then((x) => x?.dispose()); }
      const l = list(browser);
      while (l.length < opts.perBrowser) {
        const p = opts.prepare(browser).catch(() => undefined);
        l.push(p);
      }
    },
    /** Refills, then waits until every page being prepared for this browser is ready (or failed). */
    async ready(browser: Browser): Promise<void> {
      this.refill(browser);
      await Promise.all(ready.get(browser) ?? []);
    },
    async close(): Promise<void> {
      closed = true;
      const all = [...ready.values()].flat();
      ready.clear();
      await Promise.all(all.map((p) => bounded(p.then((x) => x?.dispose()), 10_000, undefined)));
    },
  };
}
