import type { BrowserContext, CDPSession, Page, Protocol, Target } from "puppeteer-core";
import { bounded, sleep } from "../util.ts";
import { pageFunction } from "./page-script.ts";
import type { ProbeWorlds } from "./probe-world.ts";

export interface LandingArtifact {
  tab: "new_tab" | "same_tab" | "none";
  url: string;
  title: string;
  working: boolean;
  screenshotJpeg?: Uint8Array;
  /** What ended the wait (for the scan log). */
  evidence: string;
  /**
   * Set when the bound ran out before the landing answered (epoch ms, the click to the give-up): the click's handlers
   * still busy, the tab not there, the document not committed or not loaded. Then `tab`/`working` say what was seen by
   * then — on a host short of CPU, the machine's delay rather than the landing page's (fields/measurement.ts).
   */
  unfinished?: { fromMs: number; toMs: number };
}

/** What the landing document shows (page/landing-state.js). */
export interface PageState { ready: string; href: string; title: string; status: number; rendered: boolean }
const PAGE_STATE = pageFunction(new URL("./page/landing-state.js", import.meta.url), "landingState")();

/** One rendered frame and the task after it: whatever the click queued for the next frame or task has run after it. */
const NEXT_FRAME = pageFunction<[fallbackMs: number]>(new URL("./page/next-frame.js", import.meta.url), "nextFrame")(500);

/** Waits until the landing document finished loading (or the bound passed) and reads what it shows. */
async function settle(page: Page, untilMs: number, stepMs: number): Promise<PageState | undefined> {
  let last: PageState | undefined;
  while (Date.now() < untilMs) {
    last = await bounded(page.evaluate(PAGE_STATE) as Promise<PageState>, stepMs, last);
    if (last && last.ready === "complete" && last.href !== "about:blank") break;
    await sleep(100);
  }
  return last;
}

export interface LandingOptions {
  /** The scan's tab (a new page target that is not this one is the click's new tab). */
  target: Target;
  /**
   * Puppeteer's Page on the scan's tab, asked for only when the click navigates it (the landing page is read and
   * shot through it): a click that opens a new tab or nothing needs none (issue 22, see click()).
   */
  page: () => Promise<Page | undefined>;
  client: CDPSession;
  context: BrowserContext;
  worlds: ProbeWorlds;
  mainFrameId: string;
  point: { x: number; y: number };
  /**
   * A touch device: the click is a tap (touchstart/touchend, then the click the browser makes of it), as a finger
   * gives it. Mobile creatives that exit on touchend alone never see a mouse click.
   */
  touch?: boolean;
  waitMs: number;
  stepMs: number;
  /** Resolves with the URL of the next top-frame document request (from the scanner's interception). */
  nextTopNavigation: () => Promise<string>;
  /** Requests started after the click that have not finished yet (a click tracker on its way). */
  inflightSince: (index: number) => number;
  requestCount: () => number;
  /** Timeouts scheduled by the click's handlers that have not run yet, over every realm of the creative. */
  clickTimers: () => number;
  /** A frame loop the click started (local epoch ms of the click) still runs, by its realm's latest report. */
  clickLoop: (since: number) => boolean;
}

/**
 * How long after the click a frame loop it started keeps the click "not finished": an exit tween's press or slide is
 * a few hundred ms; a loop the click started that runs for ever (an expanding canvas scene) must not hold the scan to
 * the landing bound.
 */
export const CLICK_LOOP_MS = 3_000;

/**
 * Clicks the creative where a user would (the centre of its largest link/clickable element, else of its box) with a
 * trusted mouse event and follows what the click does, known from events rather than from a wait:
 *  - a new tab: Page.windowOpen (window.open, target=_blank links with or without noopener, forms) or any new page
 *    target in the scan's context;
 *  - the same tab: a navigation requested for the top frame (anchor, form, location change from any frame);
 *  - nothing: once the click's handlers have provably finished — no timer they scheduled is still pending, no
 *    request they started is in flight, no frame loop they started still runs (for up to CLICK_LOOP_MS), and a
 *    rendered frame and the task after it brought nothing.
 * The landing page loads in the scan's context (same egress proxy, same cookies) with the scan's device, UA and
 * language (see new-tab-profile.ts). "working" = the final document (after redirects) answered 2xx and rendered.
 */
/**
 * A trusted click (or tap) on the scan's own session: the same Input commands, with the same parameters, that
 * puppeteer's `page.mouse.click` / `page.touchscreen.tap` send on a fresh Page (pointer from (0,0), no modifiers,
 * touch id 1). Puppeteer's Page is no longer made before every v3 click-through just to click: making it attached a
 * second session to the tab with Page, Network, Runtime, Log, Performance and Audits enabled and its utility world in
 * every frame (README, "Round four").
 */
async function click(client: CDPSession, point: { x: number; y: number }, touch: boolean | undefined): Promise<void> {
  const { x, y } = point;
  if (touch) {
    const touchPoints = [{ x: Math.round(x), y: Math.round(y), radiusX: 0.5, radiusY: 0.5, force: 0.5, id: 1 }];
    await client.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints, modifiers: 0 });
    await client.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints, modifiers: 0 });
    return;
  }
  // Sent together, in order, as puppeteer queues them (one session delivers them in order).
  await Promise.all([
    client.send("Input.dispatchMouseEvent", { type: "mouseMoved", modifiers: 0, buttons: 0, button: "none", x, y }),
    client.send("Input.dispatchMouseEvent", { type: "mousePressed", modifiers: 0, clickCount: 1, buttons: 1, button: "left", x, y }),
    client.send("Input.dispatchMouseEvent", { type: "mouseReleased", modifiers: 0, clickCount: 1, buttons: 0, button: "left", x, y }),
  ]);
}

export async function captureLandingPage(opts: LandingOptions): Promise<LandingArtifact> {
  const { client, context } = opts;
  const until = Date.now() + opts.waitMs;
  let popup: Target | undefined;
  let popupRequested = "";
  let sameTab = "";
  let committed = "";
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  const onTarget = (t: Target) => {
    if (t.type() !== "page" || t === opts.target) return;
    popup ??= t;
    poke();
  };
  const onWindowOpen = (e: Protocol.Page.WindowOpenEvent) => {
    popupRequested ||= e.url || "about:blank";
    poke();
  };
  const onNavigation = (e: Protocol.Page.FrameRequestedNavigationEvent) => {
    if (e.frameId !== opts.mainFrameId) return;
    if (e.disposition === "currentTab") sameTab ||= e.url;
    else popupRequested ||= e.url;
    poke();
  };
  // The old document stays "complete" until the new one commits: read the landing page only after that.
  const onCommit = (e: Protocol.Page.FrameNavigatedEvent) => {
    if (e.frame.id !== opts.mainFrameId || e.type !== "Navigation") return;
    committed = e.frame.url;
    poke();
  };
  context.on("targetcreated", onTarget);
  client.on("Page.windowOpen", onWindowOpen);
  client.on("Page.frameRequestedNavigation", onNavigation);
  client.on("Page.frameNavigated", onCommit);
  void opts.nextTopNavigation().then((url) => {
    sameTab ||= url;
    poke();
  });
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, ms);
    });
  const nextFrame = () => opts.worlds.evaluate(opts.mainFrameId, NEXT_FRAME, opts.stepMs, true);
  const clickedAt = Date.now();
  const unfinished = () => ({ unfinished: { fromMs: clickedAt, toMs: Date.now() } });
  const loaded = (st: PageState | undefined) => !!st && st.ready === "complete" && st.href !== "about:blank";
  try {
    const startIndex = opts.requestCount();
    await bounded(click(client, opts.point, opts.touch), opts.stepMs, undefined);
    let quietChecks = 0;
    let evidence = "";
    while (Date.now() < until) {
      if (popup || popupRequested) { evidence = "new tab"; break; }
      if (sameTab) { evidence = "top-frame navigation"; break; }
      // A frame loop the click started: its end may open the exit (GSAP's onComplete), with no timer pending meanwhile.
      const looping = Date.now() - clickedAt < CLICK_LOOP_MS && opts.clickLoop(clickedAt);
      const busy = opts.clickTimers() > 0 || opts.inflightSince(startIndex) > 0 || looping;
      if (busy) quietChecks = 0;
      else if (++quietChecks >= 2) { evidence = "click handlers finished"; break; }
      // Quiet: a frame and a task through the page are the next look's evidence (a handler's animation frame has run,
      // and what the page said before the answer came first on this session), not a fixed wait.
      await nextFrame();
      if (busy) await wait(100);
    }
    if (!evidence) evidence = "time-out";
    if (!popup && popupRequested) {
      // The window was asked for; its target follows within the browser's own bookkeeping.
      while (!popup && Date.now() < until) await wait(50);
    }
    if (popup) {
      const p = await bounded(popup.page(), opts.stepMs, null);
      if (!p) return { tab: "new_tab", url: popupRequested || popup.url(), title: "", working: false, evidence, ...unfinished() };
      try {
        const st = await settle(p, until, opts.stepMs);
        const shot = await bounded(p.screenshot({ type: "jpeg", quality: 70 }), opts.stepMs, undefined);
        // An error page's URL (chrome-error://…) says nothing: report the URL the tab tried to open.
        const pageUrl = p.url();
        const tried = pageUrl && !pageUrl.startsWith("chrome-error:") && pageUrl !== "about:blank" ? pageUrl : popupRequested || pageUrl;
        const href = st?.href && !st.href.startsWith("chrome-error:") ? st.href : tried;
        return {
          tab: "new_tab", url: href, title: st?.title ?? "",
          working: !!st && !st.href.startsWith("chrome-error:") && st.status >= 200 && st.status < 300 && st.rendered,
          ...(shot ? { screenshotJpeg: new Uint8Array(shot) } : {}),
          evidence,
          ...(loaded(st) ? {} : unfinished()),
        };
      } finally {
        await bounded(p.close(), opts.stepMs, undefined);
      }
    }
    if (!sameTab) return { tab: "none", url: "", title: "", working: false, evidence, ...(evidence === "time-out" ? unfinished() : {}) };
    // The tab navigates: its Page is made now, beside the navigation (bounded: a tab that does not answer is a
    // landing not read, as a Page that could not be made before the click was).
    const made = bounded(opts.page(), opts.stepMs, undefined);
    while (!committed && Date.now() < until) await wait(50);
    const page = await made;
    if (!page) return { tab: "same_tab", url: sameTab, title: "", working: false, evidence, ...unfinished() };
    const st = committed ? await settle(page, until, opts.stepMs) : undefined;
    const shot = await bounded(page.screenshot({ type: "jpeg", quality: 70 }), opts.stepMs, undefined);
    const href = st?.href && !st.href.startsWith("chrome-error:") ? st.href : sameTab;
    // Nothing committed within the bound: the navigation never completed; report where it was going.
    return {
      tab: "same_tab", url: href, title: st?.title ?? "",
      working: !!st && !st.href.startsWith("chrome-error:") && st.status >= 200 && st.status < 300 && st.rendered,
      ...(shot ? { screenshotJpeg: new Uint8Array(shot) } : {}),
      evidence,
      ...(loaded(st) ? {} : unfinished()),
    };
  } finally {
    context.off("targetcreated", onTarget);
    client.off("Page.windowOpen", onWindowOpen);
    client.off("Page.frameRequestedNavigation", onNavigation);
    client.off("Page.frameNavigated", onCommit);
  }
}
