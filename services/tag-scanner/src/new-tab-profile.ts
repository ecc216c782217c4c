import type { Browser, CDPSession } from "puppeteer-core";
import { bounded } from "./util.ts";

/** What a tab of a scan looks like to the sites it loads: the scan's device, user agent and language. */
export interface TabProfile {
  userAgent: string;
  /** Plain language list for navigator.languages ("de-DE,de"); Chromium derives the header from it. */
  acceptLanguage: string;
  platform: string;
  width: number;
  height: number;
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
}

export interface NewTabProfiles {
  /** Every page that opens in this browser context from now on starts with `profile`; returns the unregister. */
  register(browserContextId: string, profile: TabProfile): () => void;
}

/**
 * A landing page opened by a click (a new tab) must be requested with the scan's user agent, language and device
 * from its very first request, or a landing page that varies by device is judged on the wrong one. Puppeteer
 * attaches to every new target paused (waitForDebuggerOnStart) and resumes it with Runtime.runIfWaitingForDebugger
 * right away, with no hook in between; Chromium also defers a paused target's first navigation until it is resumed.
 * So each new session's resume is held back until the target's browser context is known and, for a page of a scan
 * context, its emulation is applied. Commands of one session run in order, so the emulation is in place before the
 * page runs or requests anything. With Chromium's tab targets, the tab (attached first) is held too until its page
 * session has the emulation queued: a running tab starts loading before its page would be paused. Puppeteer's
 * Connection emits "sessionattached" synchronously with the attach event, before its TargetManager sends the
 * resume: this relies on that internal order (puppeteer-core 24.x) and falls back to resuming without a profile if
 * anything fails (test/render.test.ts checks the landing request's UA, language and viewport).
 */
export function installNewTabProfiles(browser: Browser): NewTabProfiles {
  const profiles = new Map<string, TabProfile>();
  /** Tabs of a scan context held back until their page has its profile (per browser context). */
  const heldTabs = new Map<string, Array<() => void>>();
  const releaseTabs = (contextId: string) => {
    for (const release of heldTabs.get(contextId)?.splice(0) ?? []) release();
  };
  const connection = (browser as unknown as { _connection?: { on(ev: string, fn: (s: CDPSession) => void): void } })._connection;
  connection?.on("sessionattached", (session: CDPSession) => {
    if (profiles.size === 0) return;
    const send = session.send.bind(session) as (method: string, params?: object) => Promise<unknown>;
    const ready = (async () => {
      const info = (await bounded(send("Target.getTargetInfo"), 2_000, undefined)) as
        | { targetInfo: { type: string; browserContextId?: string } }
        | undefined;
      const t = info?.targetInfo;
      const contextId = t?.browserContextId;
      const p = contextId ? profiles.get(contextId) : undefined;
      if (!t || !contextId || !p) return;
      if (t.type === "page") {
        // The emulation commands are queued on the page's session first; they complete only once its tab runs.
        const applied = Promise.all(applyProfile(send, p));
        releaseTabs(contextId);
        await bounded(applied, 10_000, undefined);
      } else if (t.type === "tab") {
        // A new tab starts loading its page as soon as the tab itself runs: hold it until its page target (attached
        // meanwhile through the tab's own auto-attach) has the profile. Bounded, in case the page never shows up.
        await new Promise<void>((resolve) => {
          const list = heldTabs.get(contextId) ?? [];
          list.push(resolve);
          heldTabs.set(contextId, list);
          setTimeout(resolve, 5_000);
        });
      }
    })();
    (session as unknown as { send: (m: string, p?: object) => Promise<unknown> }).send = (method: string, params?: object) =>
      method === "Runtime.runIfWaitingForDebugger" ? ready.then(() => send(method, params)) : send(method, params);
  });
  return {
    register(id, profile) {
      profiles.set(id, profile);
      return () => {
        profiles.delete(id);
        releaseTabs(id);
        heldTabs.delete(id);
      };
    },
  };
}

export function applyProfile(send: (method: string, params?: object) => Promise<unknown>, p: TabProfile): Array<Promise<unknown>> {
  return [
    send("Emulation.setUserAgentOverride", { userAgent: p.userAgent, acceptLanguage: p.acceptLanguage, platform: p.platform }),
    send("Emulation.setDeviceMetricsOverride", { width: p.width, height: p.height, deviceScaleFactor: p.deviceScaleFactor, mobile: p.isMobile }),
    send("Emulation.setTouchEmulationEnabled", { enabled: p.hasTouch, maxTouchPoints: p.hasTouch ? 5 : 1 }),
  ].map((x) => x.catch(() => {}));
}
