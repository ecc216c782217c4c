import type { BrowserContext, CDPSession, Page, Target } from "puppeteer-core";
import { bounded, sleep } from "../util.ts";

export interface LandingArtifact {
  tab: "new_tab" | "same_tab" | "none";
  url: string;
  title: string;
  working: boolean;
  screenshotJpeg?: Uint8Array;
}

const PAGE_STATE = `(() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const b = document.body;
  return { ready: document.readyState, href: location.href, title: document.title,
    status: nav && typeof nav.responseStatus === "number" ? nav.responseStatus : 0,
    rendered: !!b && (b.children.length > 0 || (b.innerText || "").trim().length > 0) };
})()`;

interface PageState { ready: string; href: string; title: string; status: number; rendered: boolean }

/** Waits until the page finished loading (or the bound passed) and reads what it shows. */
async function settle(page: Page, untilMs: number, stepMs: number): Promise<PageState | undefined> {
  let last: PageState | undefined;
  while (Date.now() < untilMs) {
    last = await bounded(page.evaluate(PAGE_STATE) as Promise<PageState>, stepMs, last);
    if (last && last.ready === "complete" && last.href !== "about:blank") break;
    await sleep(200);
  }
  return last;
}

/**
 * Clicks the creative where a user would (the centre of its largest link/clickable element, else of its box) with a
 * trusted mouse event, then follows what opens: a new tab (a target whose opener is our page) or a same-tab
 * navigation of the top frame. The landing page loads through the same context, hence the same egress proxy.
 * "working" = the landing document answered 2xx and rendered something. The tab is closed afterwards.
 */
export async function captureLandingPage(opts: {
  page: Page;
  client: CDPSession;
  context: BrowserContext;
  point: { x: number; y: number };
  viewport: { width: number; height: number; deviceScaleFactor: number };
  waitMs: number;
  stepMs: number;
  /** Resolves with the URL of the next top-frame document request (set up by the scanner's interception). */
  nextTopNavigation: () => Promise<string>;
  /** Requests the creative has made so far: activity after the click means a click-through may still be coming. */
  requestCount: () => number;
  /** How long a click that caused no request at all may take to open something. */
  quietClickMs?: number;
}): Promise<LandingArtifact> {
  const { page, context } = opts;
  const until = Date.now() + opts.waitMs;
  let onTarget: ((t: Target) => void) | undefined;
  const popup = new Promise<Page | null>((resolve) => {
    onTarget = (t: Target) => {
      if (t.type() !== "page" || t.opener() !== page.target()) return;
      void t.page().then(resolve, () => resolve(null));
    };
    context.on("targetcreated", onTarget);
  });
  const sameTab = opts.nextTopNavigation();
  try {
    const before = opts.requestCount();
    const clickedAt = Date.now();
    await bounded(page.mouse.click(opts.point.x, opts.point.y), opts.stepMs, undefined);
    // Popup blockers only let a click open a window inside its own handler, and location changes are just as
    // immediate, so a click that opened nothing and requested nothing within quietClickMs has no click-through.
    // A click that made requests (a click tracker before the redirect) gets the full wait.
    const quietMs = opts.quietClickMs ?? 400;
    const nothing = (async () => {
      for (;;) {
        await sleep(100);
        const waited = Date.now() - clickedAt;
        if (waited >= Math.min(4_000, opts.waitMs) || (waited >= quietMs && opts.requestCount() === before)) return undefined;
      }
    })();
    const first = await Promise.race([
      popup.then((p) => (p ? { kind: "new" as const, p } : undefined)),
      sameTab.then((url) => ({ kind: "same" as const, url })),
      nothing,
    ]);
    if (!first) return { tab: "none", url: "", title: "", working: false };
    if (first.kind === "new") {
      const p = first.p;
      try {
        await bounded(p.setViewport({ width: opts.viewport.width, height: opts.viewport.height, deviceScaleFactor: opts.viewport.deviceScaleFactor }), opts.stepMs, undefined);
        const st = await settle(p, until, opts.stepMs);
        const shot = await bounded(p.screenshot({ type: "jpeg", quality: 70 }), opts.stepMs, undefined);
        return {
          tab: "new_tab", url: st?.href && !st.href.startsWith("chrome-error:") ? st.href : p.url(), title: st?.title ?? "",
          working: !!st && st.status >= 200 && st.status < 300 && st.rendered,
          ...(shot ? { screenshotJpeg: new Uint8Array(shot) } : {}),
        };
      } finally {
        await bounded(p.close(), opts.stepMs, undefined);
      }
    }
    const st = await settle(page, until, opts.stepMs);
    const shot = await bounded(page.screenshot({ type: "jpeg", quality: 70 }), opts.stepMs, undefined);
    const href = st?.href && !st.href.startsWith("chrome-error:") ? st.href : first.url;
    return {
      tab: "same_tab", url: href, title: st?.title ?? "",
      working: !!st && !st.href.startsWith("chrome-error:") && st.status >= 200 && st.status < 300 && st.rendered,
      ...(shot ? { screenshotJpeg: new Uint8Array(shot) } : {}),
    };
  } finally {
    if (onTarget) context.off("targetcreated", onTarget);
  }
}
