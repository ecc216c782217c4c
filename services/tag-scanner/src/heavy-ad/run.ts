import type { EgressProxy, OutboundPolicy } from "@cva/platform";
import type { Browser, Protocol } from "puppeteer-core";
import type { DeviceProfile } from "../config.ts";
import { gatherInterception } from "../gatherers/interception.ts";
import { gatherNetwork } from "../gatherers/network.ts";
import { MRAID_ENV_JS } from "../mraid-host.ts";
import { tabProfile } from "../prepared-page.ts";
import type { SyntheticSite } from "../synthetic-origin.ts";
import { closeSidePage, openSidePage, type SidePage } from "../side-page.ts";
import { bounded, sleep } from "../util.ts";
import { adFrameSite } from "./ad-frame-site.ts";
import { heavyAdFromIssue, type HeavyAdOutcome, type HeavyAdRun } from "./issue.ts";
import { CHROME_HEAVY_AD_LIMITS } from "./trigger.ts";

export type { HeavyAdRun };

/** Chrome's CPU window and a little more: a creative that keeps a core busy is unloaded within it. */
const MAX_WATCH_MS = CHROME_HEAVY_AD_LIMITS.cpuPeakWindowMs + 2_000;
/** Quiet this long (no request on its way, the main thread's tasks nearly idle) after the first run's length ends the watch. */
const QUIET_MS = 1_000;
/** The most any one step waits: ad tagging's index (2–8 s measured), the side page's renderer start, the navigation. */
const SETUP_MS = 60_000;
/** How long a verdict Chrome owes (the frame is past its network limit) is waited for after the watch. */
const LATE_VERDICT_MS = 5_000;
/** "Nearly idle": the main thread busy less than this share of a quiet stretch. */
const IDLE_SHARE = 0.1;
/** "Busy without a break": the main thread's tasks filled this share of the last look's wall time. */
const HELD_SHARE = 0.9;

/**
 * The creative in a frame Chrome tags as an ad, on the scan's browser in a context of its own (nothing shared with the
 * first run), watched until Chrome unloads it (Audits HeavyAdIssue, HeavyAdBlocked) or it goes quiet after at least
 * the first run's render length, at most Chrome's 30 s CPU window, within `deadline`. `why` is the trigger's detail.
 */
export async function runHeavyAd(opts: {
  browser: Browser;
  adTagging: () => Promise<boolean>;
  startProxy: (policy: OutboundPolicy) => Promise<EgressProxy>;
  policy: OutboundPolicy;
  site: SyntheticSite;
  profile: DeviceProfile;
  size: { width: number; height: number };
  minWatchMs: number;
  deadline: number;
  why: string;
}): Promise<HeavyAdRun> {
  const out: HeavyAdRun = { checked: false, intervened: false, reason: "", watchedMs: 0, detail: opts.why };
  // Set-up waits are bounded by SETUP_MS whatever the job's deadline (a job without one, as in tests, has Infinity left).
  const left = () => Math.min(opts.deadline - Date.now(), SETUP_MS);
  // Chrome indexes the ad-tagging ruleset 2–8 s after the browser starts; a frame loaded before that is no ad frame.
  if (!(await bounded(opts.adTagging(), Math.max(0, left()), false))) {
    return { ...out, detail: `${opts.why}; not run: Chrome's ad tagging was not ready in time` };
  }
  let side: SidePage | undefined;
  try {
    side = await openSidePage(opts.browser, () => opts.startProxy(opts.policy), Math.max(0, left()), "the heavy-ad run");
    const { client } = side;
    const site = adFrameSite(opts.site, opts.size.width, opts.size.height);
    let mainFrameId = "";
    const net = gatherNetwork(client, { isSynthetic: (u) => site.respond(u) !== undefined });
    const interception = gatherInterception(client, { current: site }, () => mainFrameId);
    let verdict: HeavyAdOutcome | undefined;
    let unloaded: () => void = () => {};
    const gone = new Promise<void>((r) => (unloaded = r));
    client.on("Audits.issueAdded", (e: Protocol.Audits.IssueAddedEvent) => {
      const o = heavyAdFromIssue(e.issue);
      if (o && !verdict) {
        verdict = o;
        unloaded();
      }
    });
    mainFrameId = (await client.send("Page.getFrameTree")).frameTree.frame.id;
    const t = tabProfile(opts.profile);
    await Promise.all([
      client.send("Page.enable"),
      client.send("Audits.enable"),
      client.send("Performance.enable", { timeDomain: "timeTicks" }),
      net.start(),
      interception.start(),
      site.inApp ? client.send("Page.addScriptToEvaluateOnNewDocument", { source: MRAID_ENV_JS }) : undefined,
      client.send("Emulation.setDeviceMetricsOverride", { width: t.width, height: t.height, deviceScaleFactor: t.deviceScaleFactor, mobile: t.isMobile }),
      client.send("Emulation.setUserAgentOverride", { userAgent: t.userAgent, acceptLanguage: t.acceptLanguage, platform: t.platform }),
    ]);
    let loaded = false;
    client.on("Page.loadEventFired", () => { loaded = true; });
    // The renderer main thread's CPU clock and task time (ThreadTime, TaskDuration; s). Chrome counts task wall time
    // (heavy-ad/trigger.ts); DevTools answers getMetrics during a running script (at V8 interrupts) and its
    // TaskDuration includes the running task so far (measured: +1.0 s a second through `while (true) {}` on a loaded
    // host, ThreadTime +0.1–0.9). The thread is busy when either grows: task time for a preempted task, the CPU clock
    // where a host's accounting lags. No answer within the bound: busy too (the ad frame shares the page's renderer).
    // The span is the renderer's own (Timestamp, taken with the clocks): spans between our replies move with the
    // delays of the replies, and on a host at load 12 an endless task read under 0.9 of a busy span that way (CI
    // 2026-11-27), which is the host's reply delay, not a break in the task.
    const clocks = async () => {
      const m = await bounded(client.send("Performance.getMetrics"), 2_000, undefined);
      const get = (n: string) => m?.metrics.find((x) => x.name === n)?.value;
      const thread = get("ThreadTime"), task = get("TaskDuration"), at = get("Timestamp");
      return thread !== undefined && task !== undefined ? { thread, task, at } : undefined;
    };
    const started = Date.now();
    out.checked = true;
    await bounded(client.send("Page.navigate", { url: site.entryUrl }), Math.max(0, left()), undefined);
    const end = Math.min(opts.deadline, started + MAX_WATCH_MS);
    let quietSince = Date.now();
    let last = await clocks();
    let lastAt = Date.now();
    /** At the last look the main thread was busy without a break (or did not answer). */
    let held = false;
    // Until Chrome unloads the frame, or — on evidence — the creative has gone quiet for QUIET_MS after the first run's
    // length: nothing on the network and the main thread nearly idle; Chrome's window is the bound.
    while (!verdict && Date.now() < end) {
      await Promise.race([gone, sleep(250)]);
      if (verdict) break;
      const now_ = await clocks();
      const now = Date.now();
      const dt = now_?.at !== undefined && last?.at !== undefined && now_.at > last.at ? now_.at - last.at : (now - lastAt) / 1000;
      const cpu = now_ && last && dt > 0 ? (now_.thread - last.thread) / dt : undefined;
      const tasks = now_ && last && dt > 0 ? (now_.task - last.task) / dt : undefined;
      const busyShare = cpu !== undefined && tasks !== undefined ? Math.max(cpu, tasks) : 1;
      held = busyShare >= HELD_SHARE;
      [last, lastAt] = [now_, now];
      if (net.busy() || !loaded || busyShare >= IDLE_SHARE) quietSince = now;
      else if (now - started >= opts.minWatchMs && now - quietSince >= QUIET_MS) break;
    }
    // Chrome's page-load metrics reach its intervention in batches: a frame already past the network limit when the
    // watch went quiet is unloaded a moment later, so its verdict is waited for (bounded), not missed.
    const frameBytes = net.artifact.requests.reduce((n, r) => n + Math.max(r.encodedBytes, r.bodyBytes), 0);
    if (!verdict && frameBytes >= CHROME_HEAVY_AD_LIMITS.networkBytes) await Promise.race([gone, sleep(Math.max(0, Math.min(LATE_VERDICT_MS, left())))]);
    out.watchedMs = Date.now() - started;
    interception.stop();
    await bounded(net.stop(), 500, undefined);
    if (verdict) return { ...out, ...verdict, detail: `${opts.why}; Chrome unloaded the ad frame after ${(out.watchedMs / 1000).toFixed(1)} s` };
    const cut = Date.now() >= opts.deadline ? " (cut short by the scan's deadline)" : "";
    // Chrome adds a task's time when the task ends: one still running at the end of the watch was never counted.
    const still = held ? "; the frame's main thread was still busy without a break at the end (Chrome counts a task's time when it ends)" : "";
    return { ...out, detail: `${opts.why}; Chrome did not intervene in ${(out.watchedMs / 1000).toFixed(1)} s${cut}${still}` };
  } catch (err) {
    return { ...out, detail: `${opts.why}; the ad-frame run failed: ${String(err).slice(0, 300)}` };
  } finally {
    if (side) closeSidePage(side);
  }
}
