// One Chromium per test worker, lent to each test file of the worker in turn, instead of one launched per file.
//
// A file in the `suite-shared` project (vitest.config.ts SHARED: isolate false) runs in a worker that runs other
// files before and after it; starting Chromium with the scanner's flags, its sandbox and network namespace, and
// indexing the ad-tagging ruleset costs each file ~2.7 CPU-s and 1–3 s of wall before its first scan. Here the worker
// keeps one real pool (the product's, unchanged flags) for all its files, and each file gets a pool of its own on top
// of it — its own slot count, its own close hooks (the scanner's prepared pages), its own leases — whose close() does
// not stop the browser. Each scan still gets its own incognito context, as in production; a scan that marks its
// lease broken kills the shared browser, and the next acquire starts a new one (the product pool's own rule).
//
// The process guard spares the kept pool's processes at a file's end (test/harness/process-guard/worker.ts) and kills
// them when the worker stops, where the profile directories are removed too. In an isolated worker (a file run alone
// in the `suite` project) this is one file's browser, gone with its worker.
import { rmSync } from "node:fs";
import { createBrowserPool, type BrowserLease, type BrowserPool } from "../src/index.ts";
import { bounded } from "../src/util.ts";

/** Slots of the worker's browser: the most any file asks for (test/helpers.ts createTestScanner: 2). */
const SHARED_SLOTS = 2;

interface Kept { pool: BrowserPool; dirs: Set<string> }
const worker = globalThis as { cvaSharedTagScannerPool?: Kept; cvaProcessGuardKeep?: Set<() => number[]> };

function kept(): Kept {
  if (worker.cvaSharedTagScannerPool) return worker.cvaSharedTagScannerPool;
  const k: Kept = { pool: createBrowserPool({ browsers: 1, slots: SHARED_SLOTS }), dirs: new Set() };
  worker.cvaSharedTagScannerPool = k;
  // Read at every file's end: the browser of the moment (a broken lease replaces it), and its profile, to remove.
  (worker.cvaProcessGuardKeep ??= new Set()).add(() => {
    const held = k.pool.held?.() ?? { pids: [], dirs: [] };
    for (const d of held.dirs) k.dirs.add(d);
    return held.pids;
  });
  // The guard (registered first) has killed the browser by the time these run: its profile directories go with it.
  const removeProfiles = () => {
    for (const d of k.dirs) rmSync(d, { recursive: true, force: true, maxRetries: 3 });
  };
  process.on("message", (m: { type?: string; __vitest_worker_request__?: boolean } | undefined) => {
    if (m?.__vitest_worker_request__ && m.type === "stop") removeProfiles();
  });
  process.on("exit", removeProfiles);
  return k;
}

/**
 * A pool for one test file, lending the worker's browser: `slots` scans of this file at once (the other worker's files
 * use their own browser). Like createBrowserPool({ browsers: 1, slots }) to the scanner.
 */
export function sharedBrowserPool(slots: number): BrowserPool {
  if (slots > SHARED_SLOTS) throw new Error(`sharedBrowserPool: at most ${SHARED_SLOTS} slots`);
  const shared = kept().pool;
  const leases = new Set<BrowserLease>();
  const waiters: Array<() => void> = [];
  const closeHooks: Array<() => Promise<void>> = [];
  let inUse = 0;
  let closed = false;
  const wakeAll = () => {
    for (const w of waiters.splice(0)) w();
  };
  return {
    capacity: slots,
    slotsPerBrowser: slots,
    get busy() {
      return inUse;
    },
    async acquire(signal, opts) {
      const taken = opts?.exclusive ? slots : 1;
      for (;;) {
        if (closed) throw new Error("browser pool closed");
        if (signal?.aborted) throw new Error("aborted");
        if (inUse + taken <= slots) break;
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          signal?.addEventListener("abort", () => resolve(), { once: true });
        });
      }
      inUse += taken;
      let lease: BrowserLease;
      try {
        lease = await shared.acquire(signal, opts);
      } catch (err) {
        inUse -= taken;
        wakeAll();
        throw err;
      }
      leases.add(lease);
      let released = false;
      return {
        ...lease,
        release(broken) {
          if (released) return;
          released = true;
          leases.delete(lease);
          inUse -= taken;
          lease.release(broken);
          wakeAll();
        },
      };
    },
    onClose(fn) {
      closeHooks.push(fn);
    },
    async close() {
      closed = true;
      await Promise.all(closeHooks.splice(0).map((fn) => bounded(fn(), 15_000, undefined)));
      wakeAll();
      // A lease the file never gave back may hold pages in the browser: the next file gets a fresh one.
      for (const lease of leases) lease.release(true);
      leases.clear();
    },
  };
}
