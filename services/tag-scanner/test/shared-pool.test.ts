// The per-worker browser the render files borrow (shared-pool.ts): one Chromium lent from file to file, each file's
// pool its own, a lease a file never gave back not handed to the next one, and the process guard told what to spare.
import { describe, expect, it } from "vitest";
import { sharedBrowserPool } from "./shared-pool.ts";

const kept = () => [...((globalThis as { cvaProcessGuardKeep?: Set<() => number[]> }).cvaProcessGuardKeep ?? [])].flatMap((f) => f());

describe("sharedBrowserPool", () => {
  it("lends one browser to pool after pool, each capped at its own slots, and names its processes to the guard", async () => {
    const a = sharedBrowserPool(1);
    const l1 = await a.acquire();
    const pid = l1.browser.process()?.pid;
    expect(pid).toBeGreaterThan(0);
    expect(kept()).toContain(pid);
    // A second scan of a one-slot file waits for the first.
    let second = false;
    const waiting = a.acquire().then((l) => { second = true; return l; });
    await new Promise((r) => setTimeout(r, 200));
    expect(second).toBe(false);
    l1.release();
    (await waiting).release();
    expect(a.busy).toBe(0);
    await a.close();
    await expect(a.acquire()).rejects.toThrow(/closed/);

    // The next file: the same Chromium, still running.
    const b = sharedBrowserPool(2);
    const l2 = await b.acquire();
    expect(l2.browser.process()?.pid).toBe(pid);
    expect(l2.browser.connected).toBe(true);
    // Its own incognito context, as a scan makes one.
    const ctx = await l2.browser.createBrowserContext();
    await ctx.close();
    // Left held at close: the browser it may have left pages in is replaced for the next file.
    await b.close();

    const c = sharedBrowserPool(2);
    const l3 = await c.acquire();
    expect(l3.browser.process()?.pid).not.toBe(pid);
    expect(kept()).toContain(l3.browser.process()?.pid);
    l3.release();
    await c.close();
  }, 60_000);
});
