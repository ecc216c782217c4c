import type { EgressProxy, OutboundPolicy } from "@cva/platform";
import type { Browser, BrowserContext, CDPSession, Page, Target } from "puppeteer-core";
import type { DeviceProfile } from "./config.ts";
import { runPhase, type Gatherer } from "./gatherers/gatherer.ts";
import { gatherInterception } from "./gatherers/interception.ts";
import { gatherNetwork } from "./gatherers/network.ts";
import { gatherPageEvents } from "./gatherers/page-events.ts";
import { gatherPageSignals } from "./gatherers/page-signals.ts";
import { gatherPerformance } from "./gatherers/performance.ts";
import { createProbeWorlds } from "./gatherers/probe-world.ts";
import { gatherFilmStrip } from "./gatherers/film-strip.ts";
import { gatherFlashes } from "./gatherers/flashes.ts";
import { gatherScreencast } from "./gatherers/screencast.ts";
import { gatherConsentSensor } from "./privacy/consent-sensor.ts";
import type { NewTabProfiles, TabProfile } from "./new-tab-profile.ts";
import type { SyntheticSite } from "./synthetic-origin.ts";
import { TIMED_OUT, bounded, within } from "./util.ts";

/** The browser did not answer while a page was being set up: it is wedged and must be replaced. */
export class BrowserWedgedError extends Error {}

async function setup<T>(p: Promise<T>, ms = 15_000): Promise<T> {
  const r = await within(p, ms);
  if (r === TIMED_OUT) throw new BrowserWedgedError("the browser did not answer while setting up the scan");
  return r;
}

/**
 * Everything a scan needs before it knows its creative: its own egress proxy, incognito context, page, CDP session,
 * every gatherer started (domains enabled, instrumentation injected, interception on) and the device emulated. Made
 * ahead of time while the slot is idle (warm-pages.ts), so none of it is on the scan's critical path; used by one
 * scan only, then disposed with its context (cookies, storage, cache, renderer gone).
 */
export interface PreparedPage extends PageGatherers {
  browser: Browser;
  proxy: EgressProxy;
  context: BrowserContext;
  /**
   * Puppeteer's Page for the scan's tab, made on first call: only a click-through whose click navigates the tab
   * itself uses one (the landing's evaluate and screenshot; the click is sent on `client`). Every other step speaks
   * CDP on `client`. Made eagerly, it cost every scan a second
   * session with Page, Network, Runtime, Log, Performance and Audits enabled (every event twice) and puppeteer's
   * utility world in every frame (see openTab).
   */
  page(): Promise<Page>;
  /** The scan's tab. */
  target: Target;
  client: CDPSession;
  mainFrameId: string;
  /** The creative's synthetic site: set by the scan, read by interception and the network gatherer. */
  site: { current?: SyntheticSite };
  /** While true, popups opened by the creative are closed at once (the click-through turns it off). */
  popups: { close: boolean };
  /**
   * Every gatherer, in the order they start. Their lifecycle runs through this list only (`runPhase`), so a new
   * gatherer is one more entry; the named fields are the same objects, for what the phases read while they collect.
   */
  gatherers: readonly Gatherer[];
  /** What the creative looked for of the consent signals (privacy/); only on pages prepared for the consent states. */
  consentSensor?: ReturnType<typeof gatherConsentSensor>;
  /** The isolated worlds every DOM probe runs in (not a gatherer: a tool the phases use). */
  worlds: ReturnType<typeof createProbeWorlds>;
  /** Emulates `profile` unless it is the one already applied. */
  useProfile(profile: DeviceProfile): Promise<void>;
  /** Closes the context and the proxy; `closed` false means the browser is wedged. */
  dispose(): Promise<{ closed: boolean }>;
}

/** Per browser, a CDP session on the browser target: where the scans' tabs are opened. */
const browserSessions = new WeakMap<Browser, Promise<CDPSession>>();

/**
 * A blank tab in `ctx`, as `ctx.newPage()` opens one (Target.createTarget, about:blank) but without puppeteer's Page
 * on it. Measured (issue 22, 4 scans at once, the static 300x250 tag): puppeteer's page session enables Page, Network,
 * Runtime, Log, Performance and Audits beside the scan's own session — so the renderer reports, the browser process
 * routes and this process parses every event twice (Log.entryAdded never read) — and adds its utility world to every
 * frame (a V8 context and its events each).
 */
async function openTab(browser: Browser, ctx: BrowserContext): Promise<Target> {
  let session = browserSessions.get(browser);
  if (!session) {
    session = browser.target().createCDPSession();
    browserSessions.set(browser, session);
    session.catch(() => browserSessions.delete(browser));
  }
  const found = ctx.waitForTarget((t) => t.type() === "page", { timeout: 15_000 });
  found.catch(() => {});
  try {
    await (await session).send("Target.createTarget", { url: "about:blank", browserContextId: ctx.id });
  } catch (err) {
    if (browserSessions.get(browser) === session) browserSessions.delete(browser);
    throw err;
  }
  // The context is new: the only page in it is the one just opened (a popup needs a page to open it).
  return found;
}

/** The gatherers by role. */
export interface PageGatherers {
  events: ReturnType<typeof gatherPageEvents>;
  signals: ReturnType<typeof gatherPageSignals>;
  net: ReturnType<typeof gatherNetwork>;
  screencast: ReturnType<typeof gatherScreencast>;
  /** Photosensitivity: the screencast's changed frames through the WCAG flash analyzer. */
  flashes: ReturnType<typeof gatherFlashes>;
  /** The film strip: a few of the screencast's changed frames across the render. */
  filmStrip: ReturnType<typeof gatherFilmStrip>;
  perf: ReturnType<typeof gatherPerformance>;
  interception: ReturnType<typeof gatherInterception>;
}

export function tabProfile(p: DeviceProfile): TabProfile {
  return {
    userAgent: p.userAgent, acceptLanguage: languageList(p.language), platform: p.platform,
    width: p.width, height: p.height, deviceScaleFactor: p.deviceScaleFactor, isMobile: p.isMobile, hasTouch: p.hasTouch,
  };
}

function languageList(acceptLanguage: string): string {
  return acceptLanguage.split(",").map((l) => l.split(";")[0]!.trim()).filter((l) => /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(l)).join(",") || "en-US";
}

function emulate(client: CDPSession, p: DeviceProfile): Array<Promise<unknown>> {
  const t = tabProfile(p);
  return [
    client.send("Emulation.setDeviceMetricsOverride", { width: t.width, height: t.height, deviceScaleFactor: t.deviceScaleFactor, mobile: t.isMobile }),
    client.send("Emulation.setTouchEmulationEnabled", { enabled: t.hasTouch, maxTouchPoints: t.hasTouch ? 5 : 1 }),
    // acceptLanguage (a plain list; Chromium adds q-values itself) drives navigator.language(s). No
    // Emulation.setLocaleOverride: Chromium keeps one locale override per renderer process, first come, and a
    // process can outlive a scan — an earlier scan's locale would win over this one's.
    client.send("Emulation.setUserAgentOverride", { userAgent: t.userAgent, acceptLanguage: t.acceptLanguage, platform: t.platform }),

    // The exact targeting value on every request of the creative (the UA override derives a q-valued one).
    client.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Language": p.language } }),
  ];
}

export async function preparePage(opts: {
  browser: Browser;
  tabProfiles: NewTabProfiles;
  policy: OutboundPolicy;
  startProxy: (policy: OutboundPolicy) => Promise<EgressProxy>;
  profile: DeviceProfile;
  /** Add the consent sensor (privacy/consent-sensor.ts): the scanner renders the consent states. */
  consentSensor?: boolean;
}): Promise<PreparedPage> {
  const proxy = await opts.startProxy(opts.policy);
  let context: BrowserContext | undefined;
  let unregister: (() => void) | undefined;
  try {
    // `<-loopback>` removes Chromium's implicit proxy bypass for localhost/127.0.0.1: loopback obeys the policy too.
    context = await setup(opts.browser.createBrowserContext({
      proxyServer: proxy.url,
      proxyBypassList: ["<-loopback>"],
      downloadBehavior: { policy: "deny" },
    }));
    const ctx = context;
    let profile = opts.profile;
    if (ctx.id) unregister = opts.tabProfiles.register(ctx.id, tabProfile(profile));
    // Popups: closed at once while the creative renders (the browser's popup blocker already refuses those without
    // a user gesture); during the click-through the landing-page step takes the new tab instead.
    const popups = { close: true };
    ctx.on("targetcreated", (t: Target) => {
      if (t.type() !== "page" || !popups.close || !t.opener()) return;
      void t.page().then((p) => p?.close().catch(() => {}), () => {});
    });
    // A browser that cannot even open a tab is wedged: fail fast and let the pool replace it.
    const target = await setup(openTab(opts.browser, ctx));
    const client = await setup(target.createCDPSession());
    let pageMade: Promise<Page> | undefined;
    const page = () => (pageMade ??= target.page().then((p) => {
      if (!p) throw new Error("the scan's tab has no page");
      return p;
    }));
    const site: PreparedPage["site"] = {};
    let mainFrameId = "";
    const screencast = gatherScreencast(client);
    const byRole: PageGatherers = {
      events: gatherPageEvents(client),
      signals: gatherPageSignals(client),
      net: gatherNetwork(client, { isSynthetic: (u) => site.current?.respond(u) !== undefined }),
      // Before performance: at the render's start the screencast starts first, so that the CPU time counted from
      // the performance mark is the creative's alone.
      screencast,
      flashes: gatherFlashes(screencast),
      filmStrip: gatherFilmStrip(screencast),
      perf: gatherPerformance(client),
      interception: gatherInterception(client, site, () => mainFrameId),
    };
    const consentSensor = opts.consentSensor ? gatherConsentSensor(client) : undefined;
    const gatherers: Gatherer[] = [...Object.values(byRole), ...(consentSensor ? [consentSensor] : [])];
    const worlds = createProbeWorlds(client);
    mainFrameId = (await setup(client.send("Page.getFrameTree"))).frameTree.frame.id;
    // A gatherer that cannot start leaves the scan blind to what it gathers: the page is not used.
    const [failed] = await setup(Promise.all([runPhase(gatherers, "start"), ...emulate(client, profile)]));
    if (failed.length > 0) throw new Error(`gatherers did not start: ${failed.map((f) => `${f.gatherer}: ${f.error}`).join("; ")}`);
    return {
      browser: opts.browser, proxy, context: ctx, page, target, client, mainFrameId, site, popups,
      gatherers, ...byRole, worlds, consentSensor,
      async useProfile(p) {
        if (p.device === profile.device && p.language === profile.language && p.userAgent === profile.userAgent) return;
        profile = p;
        unregister?.();
        if (ctx.id) unregister = opts.tabProfiles.register(ctx.id, tabProfile(p));
        await setup(Promise.all(emulate(client, p)));
      },
      async dispose() {
        unregister?.();
        const closed = await bounded(ctx.close().then(() => true), 10_000, false);
        await bounded(proxy.close(), 5_000, undefined);
        return { closed };
      },
    };
  } catch (err) {
    unregister?.();
    if (context) await bounded(context.close(), 5_000, undefined);
    await bounded(proxy.close(), 5_000, undefined);
    throw err;
  }
}
