import type { Browser } from "puppeteer-core";
import type { BrowserLease } from "./browser-pool.ts";
import type { PreparedPage } from "./prepared-page.ts";
import { bounded } from "./util.ts";

/** What preparing a page on a lease's browser needs: the browser, and its tab profiles, version and proxy socket. */
export type PageLease = Pick<BrowserLease, "browser" | "tabProfiles" | "chromeMajor" | "proxyListener">;

/**
 * Pages prepared ahead of the scans that will use them, per browser: a slot that finishes a scan starts preparing
 * the next one on the lease it holds, so context, proxy, page, CDP domains and instrumentation are ready when a job
 * arrives. A page is used once. A preparation that fails, or whose browser died meanwhile, is dropped and the scan
 * prepares its own.
 */
export function createWarmPages(opts: { prepare(lease: PageLease): Promise<PreparedPage>; perBrowser: number }) {
  const ready = new Map<Browser, Array<Promise<PreparedPage | undefined>>>();
  /** The preparations that are over with a page: ready to be taken at once. */
  const done = new WeakSet<Promise<PreparedPage | undefined>>();
  let closed = false;
  const list = (b: Browser) => {
    let l = ready.get(b);
    if (!l) ready.set(b, (l = []));
    return l;
  };
  return {
    /** A prepared page for the lease's browser (waiting for one already under way), or undefined. */
    async take({ browser }: PageLease): Promise<PreparedPage | undefined> {
      const l = ready.get(browser);
      while (l && l.length > 0) {
        const p = await l.shift()!;
        if (p && browser.connected) return p;
        if (p) void p.dispose();
      }
      return undefined;
    },
    /** Pages prepared and waiting for the lease's browser's next scans (not those still being prepared). */
    readyCount({ browser }: PageLease): number {
      return (ready.get(browser) ?? []).filter((p) => done.has(p)).length;
    },
    /** Prepares pages on the lease's browser until it has `perBrowser` waiting (`most`: at most that many now). */
    refill(lease: PageLease, most = Infinity): void {
      if (closed || !lease.browser.connected) return;
      for (const [b, l] of ready) if (!b.connected) { ready.delete(b); for (const p of l) void p.then((x) => x?.dispose()); }
      const l = list(lease.browser);
      for (let n = 0; n < most && l.length < opts.perBrowser; n++) {
        const p: Promise<PreparedPage | undefined> = opts.prepare(lease).catch(() => undefined);
        void p.then((x) => { if (x) done.add(p); });
        l.push(p);
      }
    },
    /** Refills, then waits until every page being prepared for the lease's browser is ready (or failed). */
    async ready(lease: PageLease): Promise<void> {
      this.refill(lease);
      await Promise.all(ready.get(lease.browser) ?? []);
    },
    async close(): Promise<void> {
      closed = true;
      const all = [...ready.values()].flat();
      ready.clear();
      await Promise.all(all.map((p) => bounded(p.then((x) => x?.dispose()), 10_000, undefined)));
    },
  };
}
