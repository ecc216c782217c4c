import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { childEnv } from "@cva/platform";
import puppeteer, { type Browser } from "puppeteer-core";
import { BoundedPipeTransport } from "./cdp-transport.ts";
import { installNewTabProfiles, type NewTabProfiles } from "./new-tab-profile.ts";
import type { Server } from "node:net";
import { createBrowserNetns, type BrowserNetns } from "./netns.ts";
import { NETNS_PID_ENV, sandboxPlan, type SandboxPlan } from "./sandbox.ts";
import { bounded, sleep } from "./util.ts";
import { adTaggingReady, HEAVY_AD_ARGS, HEAVY_AD_UNWANTED_DEFAULT_ARGS, installAdTaggingRuleset } from "./heavy-ad/ruleset.ts";

export interface BrowserPoolOptions {
  /** Number of warm Chromium processes (TAG_SCANNER_BROWSERS, default DEFAULT_BROWSERS). */
  browsers?: number;
  /** Concurrent scans per browser (TAG_SCANNER_SLOTS, default DEFAULT_SLOTS). */
  slots?: number;
  executablePath?: string;
  /** V8 heap cap per renderer, MB: a memory-hogging creative dies alone instead of taking the worker down. */
  maxHeapMb?: number;
  /** Extra Chromium flags (tests: --ignore-certificate-errors for a self-signed fixture, host-resolver rules). */
  extraArgs?: string[];
  logger?: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
}

export interface BrowserLease {
  browser: Browser;
  /** Gives the pages a scan context opens (its landing tab) the scan's device, UA and language from the start. */
  tabProfiles: NewTabProfiles;
  /** Chromium major version, for the user agent. */
  chromeMajor: string;
  /**
   * A listening socket inside the browser's network namespace, for a scan's egress proxy (the only address the
   * browser can reach); undefined when the namespace is off.
   */
  proxyListener: (() => Promise<Server>) | undefined;
  /**
   * Resolves true once Chrome has indexed the profile's ad-tagging ruleset (heavy-ad/ruleset.ts), after which frames
   * under AD_FRAME_PATH are ad frames; false when it did not within 30 s of the browser's start.
   */
  adTagging: () => Promise<boolean>;
  /** Give the slot back; `broken` kills and replaces the browser (hung, crashed). */
  release(broken?: boolean): void;
}

export interface AcquireOptions {
  /**
   * The whole browser, no other scan beside it: for a scan retried because the browser it shared died or wedged,
   * so that whichever scan did it cannot do it again to that one.
   */
  exclusive?: boolean;
}

export interface BrowserPool {
  acquire(signal?: AbortSignal, opts?: AcquireOptions): Promise<BrowserLease>;
  readonly capacity: number;
  /** Concurrent scans per browser. */
  readonly slotsPerBrowser: number;
  readonly busy: number;
  /** Runs `fn` first when the pool closes (the scanner disposes the pages it prepared ahead). */
  onClose?(fn: () => Promise<void>): void;
  /**
   * What the pool's running browsers hold on the machine: each browser's process (a group leader) and its network
   * namespace helper, and its profile directory. For a test worker that keeps one pool for many test files
   * (test/shared-pool.ts), whose process guard must tell that pool's processes from a file's leftovers.
   */
  held?(): { pids: number[]; dirs: string[] };
  close(): Promise<void>;
}

/**
 * One browser with 4 slots: chosen by the bench's capacity curve on 2 cores (README, Performance), where 2 slots left
 * the cores idle (~80 scans/min at 4 clients) and 4 reached ~124; 2 browsers x 2 slots was equal within noise for a
 * second Chromium's memory, and 2 x 4 added nothing. Containers sized per replica set their own (compose, k8s: 2).
 */
export const DEFAULT_BROWSERS = 1;
export const DEFAULT_SLOTS = 4;

export const CHROMIUM_ARGS = [
  "--headless=new",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--no-first-run",
  "--disable-background-networking",
  // The component updater stays registered (not --disable-component-update) so that Chrome loads the ad-tagging
  // ruleset seeded in the profile (heavy-ad/ruleset.ts), but it asks no server for updates: its update source is a
  // closed port on the browser's own loopback.
  "--component-updater=url-source=http://127.0.0.1:9/",
  // Chrome's Heavy Ad Intervention without its privacy noise (issue 21 §4).
  ...HEAVY_AD_ARGS,
  "--disable-sync",
  "--disable-default-apps",
  "--mute-audio",
  "--disable-quic",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  // navigator.webdriver stays false, as in a user's browser.
  "--disable-blink-features=AutomationControlled",
  // One renderer per scan context rather than per site: all frames of a creative share one CDP target, so the page
  // session sees every frame's requests, interception, console and paints (no OOPIF bookkeeping). Each incognito
  // context still gets its own renderer, so scans never share a process.
  "--disable-site-isolation-trials",
  // WebUIOmnibox*/PreloadTopChromeWebUI: Chromium 156 preloads its omnibox popup (chrome://omnibox-popup.top-chrome/)
  // for browser windows, headless too, and each scan context got a --top-chrome-webui renderer for it: half the
  // processes, about half a scan's CPU and ~90 MB a slot (README, "Where the capacity goes"). Browser chrome only.
  "--disable-features=IsolateOrigins,site-per-process,Translate,MediaRouter,OptimizationHints,InterestFeedContentSuggestions,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI",
  // The network service (a utility process that parses every response the creative gets) in its own sandbox, under a
  // seccomp filter, as renderers are; off by default on Linux in Chromium 156 (`--service-sandbox-type=none`).
  "--enable-features=NetworkServiceSandbox",
  "--disable-breakpad",
  "--disable-extensions",
  "--password-store=basic",
];

/**
 * A fresh profile directory whose preferences are those of a default desktop Chrome: third-party cookies allowed
 * (cookie_controls_mode 0). Contexts made with createBrowserContext are off-the-record, and Chromium blocks
 * third-party cookies in those by default — an ad server's cookies set from its own domain would never show.
 */
function profileDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "cva-chromium-"));
  mkdirSync(path.join(dir, "Default"));
  writeFileSync(path.join(dir, "Default", "Preferences"), JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }));
  return dir;
}

/**
 * The browser with every process it started: puppeteer starts Chromium as a process-group leader, so a renderer or
 * zygote left behind by a hung browser goes too.
 */
function killGroup(proc: ChildProcess): void {
  try {
    if (proc.pid) process.kill(-proc.pid, "SIGKILL");
  } catch {
    proc.kill("SIGKILL");
  }
}

/** Puppeteer's defaults the scanner does not want (see CHROMIUM_ARGS' callers). */
const IGNORED_DEFAULT_ARGS = [
  // Keep Chromium's popup blocker: window.open storms without a user gesture are refused by the browser itself.
  "--disable-popup-blocking",
  // --enable-automation makes navigator.webdriver true and shows landing pages and verification wrappers a bot.
  "--enable-automation",
  // The ad-tagging ruleset needs the component updater (see CHROMIUM_ARGS).
  ...HEAVY_AD_UNWANTED_DEFAULT_ARGS,
];

/** Chromium's command line: puppeteer's defaults (with the features merged) less IGNORED_DEFAULT_ARGS, CDP over a pipe. */
export function chromiumCommandLine(userDataDir: string, args: string[]): string[] {
  return [
    ...puppeteer.defaultArgs({ headless: true, userDataDir, args: [...args] }).filter((a) => !IGNORED_DEFAULT_ARGS.includes(a)),
    "--remote-debugging-pipe",
  ];
}

/** How long a started Chromium has to answer on its pipe. */
const START_TIMEOUT_MS = 30_000;

/**
 * Chromium as the tag scanner runs it: its sandbox plan, a network namespace of its own, CDP over a pipe (no DevTools
 * port on the machine) read through BoundedPipeTransport, the scanner's flags, a minimal environment. The pool and the
 * bench's floor browser both start it here, so the floor differs from a scan only by what the scan measures.
 * Started here rather than by puppeteer.launch so that the pipe is ours: puppeteer's own pipe transport parses every
 * message whole (cdp-transport.ts).
 */
export async function launchChromium(
  sandbox: SandboxPlan, userDataDir: string, extraArgs: string[] = [],
): Promise<{ browser: Browser; netns: BrowserNetns | undefined; transport: BoundedPipeTransport }> {
  sandbox.prepareProfile(userDataDir);
  // After prepareProfile, so that the ruleset belongs to the user Chromium runs as (it writes the index beside it).
  installAdTaggingRuleset(userDataDir);
  const netns = sandbox.netns ? await createBrowserNetns() : undefined;
  let proc: ChildProcess | undefined;
  try {
    proc = spawn(sandbox.executablePath, chromiumCommandLine(userDataDir, [...CHROMIUM_ARGS, ...sandbox.args, ...extraArgs]), {
      // A process-group leader: killGroup takes every process the browser started.
      detached: true,
      // fd 3: commands to Chromium, fd 4: its answers and events (--remote-debugging-pipe).
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
      // Nothing of this process's environment (its NATS credentials, the service-secret digest): PATH, the locale
      // and the namespace helper's pid, which the wrapper joins (sandbox.ts); the wrapper sets HOME to the profile.
      env: childEnv(netns ? { [NETNS_PID_ENV]: String(netns.pid) } : {}),
    });
    const child = proc;
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2_000);
    });
    const transport = new BoundedPipeTransport(child.stdio[3] as Writable, child.stdio[4] as Readable);
    const failed = new Promise<never>((_, reject) => {
      const why = (what: string) => reject(new Error(`chromium ${what}: ${stderr.trim().slice(-500) || "no output"}`));
      child.once("error", (e) => why(`could not be started (${e.message})`));
      child.once("exit", (code, sig) => why(`exited at start (${sig ?? code})`));
      setTimeout(() => why(`did not answer within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS).unref();
    });
    failed.catch(() => {});
    const browser = await Promise.race([
      // Puppeteer would give every new tab (the landing page's too) an 800x600 viewport: each scan sets its own.
      puppeteer.connect({ transport, defaultViewport: null, protocolTimeout: 20_000 }),
      failed,
    ]);
    // connect() knows no process; the pool and the tests use browser.process() as after puppeteer.launch().
    Object.defineProperty(browser, "process", { value: () => child });
    return { browser, netns, transport };
  } catch (err) {
    if (proc) killGroup(proc);
    netns?.close();
    throw err;
  }
}

interface Slot {
  browser: Browser | undefined;
  tabProfiles: NewTabProfiles | undefined;
  netns: BrowserNetns | undefined;
  userDataDir: string | undefined;
  starting: Promise<Browser> | undefined;
  chromeMajor: string;
  adTagging: Promise<boolean>;
  busy: number;
}

export function createBrowserPool(opts: BrowserPoolOptions = {}): BrowserPool {
  const nBrowsers = Math.max(1, opts.browsers ?? Number(process.env.TAG_SCANNER_BROWSERS ?? DEFAULT_BROWSERS));
  const perBrowser = Math.max(1, opts.slots ?? Number(process.env.TAG_SCANNER_SLOTS ?? DEFAULT_SLOTS));
  const slots: Slot[] = Array.from({ length: nBrowsers }, () => ({ browser: undefined, tabProfiles: undefined, netns: undefined, userDataDir: undefined, starting: undefined, chromeMajor: "", adTagging: Promise.resolve(false), busy: 0 }));
  const waiters: Array<() => void> = [];
  const closeHooks: Array<() => Promise<void>> = [];
  let closed = false;
  const chromium = opts.executablePath ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  const sandbox = sandboxPlan(chromium);
  opts.logger?.info({ sandbox: sandbox.describe }, "chromium sandbox");

  async function launch(slot: Slot): Promise<Browser> {
    if (slot.browser?.connected) return slot.browser;
    slot.starting ??= (async () => {
      const userDataDir = profileDir();
      const { browser, netns, transport } = await launchChromium(sandbox, userDataDir, [
        `--js-flags=--max-old-space-size=${opts.maxHeapMb ?? 512}`, ...(opts.extraArgs ?? []),
      ]);
      const version = await browser.version(); // "Chrome/156.0.8078.79" or "HeadlessChrome/…"
      slot.chromeMajor = /\/(\d+)\./.exec(version)?.[1] ?? "120";
      slot.tabProfiles = installNewTabProfiles(browser);
      slot.netns = netns;
      slot.userDataDir = userDataDir;
      // Watched from the start (2–8 s to index); only a heavy-ad run waits for it.
      slot.adTagging = adTaggingReady(userDataDir);
      slot.adTagging.catch(() => {});
      const proc = browser.process();
      browser.on("disconnected", () => {
        // A browser whose CDP pipe dropped may still be running (and holding memory): make sure it is gone.
        if (proc && proc.exitCode === null && proc.signalCode === null) killGroup(proc);
        netns?.close();
        // Chromium's last processes may still be writing into the profile: retry, and never throw from here.
        void rm(userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }).catch(() => {});
        if (slot.browser === browser) slot.browser = undefined;
        // What the CDP pipe kept out of this process over the browser's life (cdp-transport.ts).
        opts.logger?.warn({ cdp: transport.stats }, "chromium disconnected; it will be relaunched on next use");
      });
      slot.browser = browser;
      return browser;
    })();
    try {
      return await slot.starting;
    } finally {
      slot.starting = undefined;
    }
  }


  function listenerFor(ns: BrowserNetns | undefined, browser: Browser): BrowserLease["proxyListener"] {
    if (!ns) return undefined;
    return () => {
      // Without its helper the browser can reach nothing: replace it rather than fail every scan on it.
      if (ns.exited && browser.connected) kill(browser);
      return ns.listen();
    };
  }

  function kill(browser: Browser) {
    const proc = browser.process();
    void bounded(browser.close(), 3_000, undefined).finally(() => {
      if (proc && proc.exitCode === null) killGroup(proc);
    });
  }

  // Every waiter looks again: an exclusive one needs a whole browser, and one release may free several slots.
  function wakeAll() {
    for (const w of waiters.splice(0)) w();
  }

  function freeSlot(exclusive: boolean): Slot | undefined {
    let best: Slot | undefined;
    for (const s of slots) if ((exclusive ? s.busy === 0 : s.busy < perBrowser) && (!best || s.busy < best.busy)) best = s;
    return best;
  }

  return {
    capacity: nBrowsers * perBrowser,
    slotsPerBrowser: perBrowser,
    get busy() {
      return slots.reduce((n, s) => n + s.busy, 0);
    },
    async acquire(signal, aopts) {
      const taken = aopts?.exclusive ? perBrowser : 1;
      for (;;) {
        if (closed) throw new Error("browser pool closed");
        if (signal?.aborted) throw new Error("aborted");
        const slot = freeSlot(taken > 1);
        if (slot) {
          slot.busy += taken;
          let browser: Browser;
          try {
            browser = await launch(slot);
          } catch (err) {
            slot.busy -= taken;
            wakeAll();
            throw err;
          }
          let released = false;
          return {
            browser,
            tabProfiles: slot.tabProfiles!,
            chromeMajor: slot.chromeMajor,
            adTagging: () => slot.adTagging,
            proxyListener: listenerFor(slot.netns, browser),
            release(broken) {
              if (released) return;
              released = true;
              slot.busy -= taken;
              if (broken && slot.browser === browser) {
                opts.logger?.warn({}, "replacing a hung or crashed chromium");
                slot.browser = undefined;
                kill(browser);
              }
              wakeAll();
            },
          };
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          signal?.addEventListener("abort", () => resolve(), { once: true });
        });
      }
    },
    onClose(fn) {
      closeHooks.push(fn);
    },
    held() {
      const up = slots.filter((s) => s.browser?.connected);
      return {
        pids: up.flatMap((s) => [s.browser!.process()?.pid, s.netns?.pid]).filter((p): p is number => p !== undefined),
        dirs: up.map((s) => s.userDataDir!),
      };
    },
    async close() {
      closed = true;
      await Promise.all(closeHooks.splice(0).map((fn) => bounded(fn(), 15_000, undefined)));
      for (const w of waiters.splice(0)) w();
      await Promise.all(
        slots.map(async (s) => {
          const b = s.browser ?? (s.starting ? await s.starting.catch(() => undefined) : undefined);
          s.browser = undefined;
          if (b) {
            const proc = b.process();
            await bounded(b.close(), 5_000, undefined);
            if (proc && proc.exitCode === null) killGroup(proc);
          }
        }),
      );
      await sleep(0);
    },
  };
}
