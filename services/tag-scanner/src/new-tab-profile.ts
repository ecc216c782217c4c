import type { Browser, CDPSession } from "puppeteer-core";
import { bounded } from "./util.ts";

/** What a tab of a scan looks like to the sites it loads: the scan's device, user agent and language. */
export interface TabProfile {
  userAgent: string;
  /** Plain language list for navigator.languages ("de-DE,de"); Chromium derives the header from it. */
  acceptLanguage: string;
  platform: string;
  locale: string;
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
 * page runs or requests anything. Puppeteer's Connection emits "sessionattached" synchronously with the attach
 * event, before its TargetManager sends the resume: this relies on that internal order (puppeteer-core 24.x) and
 * falls back to resuming without a profile if anything fails.
 */
export function installNewTabProfiles(browser: Browser): NewTabProfiles {
  const profiles = new Map<string, TabProfile>();
  const connection = (browser as unknown as { _connection?: { on(ev: string, fn: (s: CDPSession) => void): void } })._connection;
  connection?.on("sessionattached", (session: CDPSession) => {
    if (profiles.size === 0) return;
    const send = session.send.bind(session) as (method: string, params?: object) => Promise<unknown>;
    const ready = (async () => {
      const info = (await bounded(send("Target.getTargetInfo"), 2_000, undefined)) as
        | { targetInfo: { type: string; browserContextId?: string } }
        | undefined;
      const t = info?.targetInfo;
      const p = t && t.type === "page" && t.browserContextId ? profiles.get(t.browserContextId) : undefined;
      if (p) await bounded(Promise.all(applyProfile(send, p)), 2_000, undefined);
    })();
    (session as unknown as { send: (m: string, p?: object) => Promise<unknown> }).send = (method: string, params?: object) =>
      method === "Runtime.runIfWaitingForDebugger" ? ready.then(() => send(method, params)) : send(method, params);
  });
  return {
    register(id, profile) {
      profiles.set(id, profile);
      return () => profiles.delete(id);
    },
  };
}

export function applyProfile(send: (method: string, params?: object) => Promise<unknown>, p: TabProfile): Array<Promise<unknown>> {
  return [
    send("Emulation.setUserAgentOverride", { userAgent: p.userAgent, acceptLanguage: p.acceptLanguage, platform: p.platform }),
    send("Emulation.setDeviceMetricsOverride", { width: p.width, height: p.height, deviceScaleFactor: p.deviceScaleFactor, mobile: p.isMobile }),
    send("Emulation.setTouchEmulationEnabled", { enabled: p.hasTouch, maxTouchPoints: p.hasTouch ? 5 : 1 }),
    send("Emulation.setLocaleOverride", { locale: p.locale }).catch(() => {}),
  ].map((x) => x.catch(() => {}));
}
