import type { RealmReport } from "./instrument.ts";
import { pageFunction } from "./page-script.ts";
import type { ProbeWorlds } from "./probe-world.ts";
import { createScheduledEndTracker } from "./scheduled-motion-end.ts";

/**
 * The render watch: decides when the creative has finished moving, from evidence rather than from one fixed quiet
 * window. Evidence comes from three places no single one of which is enough:
 *  - the pixels (screencast change times): what actually moved, and when it last did;
 *  - the creative's own world (instrument.ts): timeouts still pending, setTimeout chains, intervals, rAF loops;
 *  - the DOM, read from an isolated world per frame: CSS/Web and SVG SMIL animations with their remaining time (delays
 *    included), playing videos, and which images are visible; plus animated GIF timing read from their bytes.
 *
 * The watch ends early only on proof: nothing one-shot is still scheduled (no pending timeout, no finite animation or
 * video or GIF with time left, nothing loading), and the pixels have been still for the settle time — or, when a
 * repeating source is alive (a rAF ticker, an interval, a timer chain: GSAP and Adobe Animate keep theirs running
 * through holds and after the end), for the hold window, which also grows with the source's period. A creative
 * provably endless (a visible infinite animation, a looping video or GIF) that is moving ends at once with -1.
 * Otherwise the render time-out ends it, and it counts as still moving if its pixels changed within the hold window
 * (or within 1.5x the longest gap seen between its changes).
 */

/** What one frame's DOM says (page/motion.js). */
export interface FrameMotion {
  /**
   * remaining ms; -1 = infinite. period = one iteration, ms. endsAt: epoch ms when a running finite animation will
   * end, on the clock of the rendering frame its timeline stands at (see ScheduledMotionEnd).
   */
  anims: Array<{ remaining: number; period: number; visible: boolean; endsAt?: number }>;
  videos: Array<{ remaining: number; period: number; visible: boolean }>;
  /** URLs of images on screen: visible <img> elements' currentSrc and visible CSS background images (a looping GIF or SVG). */
  images: string[];
  /** Inline handler attributes for the events a creative stops motion on (onanimationiteration, onended, …). */
  handlers?: number;
}

/** Every frame's answer merged. */
export interface ProbedMotion extends FrameMotion {
  /**
   * Every frame answered (or is gone). A frame that did not answer in time — a starved renderer, a busy loop — may
   * hold a delayed animation: its silence is no evidence of calm.
   */
  complete: boolean;
  /**
   * Local epoch ms when the top document answered (after two rendered frames), or gave up: with the time the probe
   * went out, how long the page's frames took (fields/measurement.ts, frameStalls).
   */
  topAt?: number;
}

/** A look at the top document that waited for two rendered frames: sent and answered, local epoch ms. */
export interface FrameWait { from: number; to: number }

export interface AnimatedImage {
  url: string;
  /** Local ms when the image finished loading (it starts playing then). */
  loadedAt: number;
  durationMs: number;
  /** 0 = forever. */
  plays: number;
}

export interface MotionEvidence {
  now: number;
  renderStart: number;
  loaded: boolean;
  /** Requests in flight or response bodies still being read. */
  networkBusy: boolean;
  /** Local ms since when nothing is in flight (0 = busy now). */
  networkIdleSince: number;
  /** Local ms of the last pixel change, or of the load event if later (0 = none yet). */
  lastChange: number;
  /** Local ms of every pixel change, oldest first. */
  changes: number[];
  realms: RealmReport[];
  /** Callbacks the realm's repeating sources ran since local time `t` (from its report history). */
  firedSince?: (realm: string, t: number) => number;
  /** Latest isolated-world probe of every frame merged; undefined until the first probe answered. */
  probe?: ProbedMotion;
  /** Local ms when that probe answered. */
  probeAt?: number;
  /** Local ms when that probe was sent: what it saw is at least this recent. */
  probeFrom?: number;
  images: AnimatedImage[];
  /**
   * The last two complete probes, oldest first: when each was sent and answered, what it saw, and how many requests
   * the page had started when it was sent. Two consecutive looks after the last activity are the proof of calm
   * (calmProof).
   */
  looks?: Look[];
  /** Requests the page has started so far: one that started and ended between two looks still counts. */
  requests?: number;
  /** The screencast's capture-to-arrival lag at its last change, ms: how late a frame drawn now reaches us. */
  captureLagMs?: number;
}

/** One complete probe: sent at `from`, answered at `at` (local ms), what it saw, the request count when sent. */
export interface Look { from: number; at: number; probe: ProbedMotion; requests: number }

export interface WatchConfig {
  /** Pixels still this long suffice when nothing repeating is alive. */
  settleMs: number;
  /** Pixels still this long end the watch while only repeating sources are alive. */
  holdMs: number;
  /**
   * The hold while a requestAnimationFrame loop is alive and no animation library vouches for its timeline: a ticker
   * gives no cadence to judge by (a timer's period does), and storyboards hold a frame for up to 10 s before the next
   * tween. Defaults to holdMs.
   */
  rafHoldMs?: number;
}

export type WatchVerdict = { done: false } | { done: true; stillMoving: boolean; reason: string };

/**
 * A rAF loop counts as alive when the realm saw a rAF call within this long before its report. Generous on purpose:
 * on a busy machine frames (and with them rAF callbacks) can be hundreds of ms apart while a ticker still runs.
 */
const RAF_LIVE_MS = 1_000;
/** How far apart a starved renderer's rAF calls may be while its ticker still counts as alive (see rafLive). */
const RAF_STARVED_MS = 3_000;
/** A realm that has not reported for this long (its heartbeat is 250 ms) may be starved or gone. */
const STALE_MS = 1_500;
/** A calm verdict needs the creative's world to have reported this recently: proof the renderer is running. */
const FRESH_MS = 750;
const NETWORK_IDLE_MS = 300;

/**
 * A rAF loop is alive if the realm saw a call shortly before it reported, or if the loop kept going after the last
 * pixel change (a ticker through a hold: on a starved renderer the calls themselves can be a second apart).
 */
function rafLive(r: RealmReport, lastChange: number): boolean {
  // Bounded: a ticker that ran on after the last change and then fell asleep (gsap.ticker's autoSleep) is not alive
  // for ever after.
  return r.raf > 0 && (r.at - r.raf < RAF_LIVE_MS || (lastChange > 0 && r.raf > lastChange + 100 && r.at - r.raf < RAF_STARVED_MS));
}

/** A realm heard from recently enough that what it says still holds. */
const fresh = (ev: MotionEvidence, r: RealmReport) => ev.now - r.at <= STALE_MS;

/**
 * A live rAF loop whose timeline nobody vouches for: no animation library in its realm says its timelines are done.
 * Only time tells whether such a ticker is holding a storyboard frame or idling after the end (rafHoldMs).
 */
function unvouchedTicker(ev: MotionEvidence): boolean {
  return ev.realms.some((r) => rafLive(r, ev.lastChange) && !r.tlDone);
}

function repeatingPeriod(ev: MotionEvidence): number | undefined {
  let repeating = ev.realms.length === 0; // no word from the creative's world at all: assume the worst
  let period = 0;
  const take = (p: number) => {
    repeating = true;
    period = Math.max(period, p);
  };
  for (const r of ev.realms) {
    const alive = rafLive(r, ev.lastChange);
    if (r.chainPeriod > 0) take(r.chainPeriod);
    if (r.intervals > 0) take(r.intervalPeriod);
    if (alive) take(17);
    // A library timeline that repeats forever is a repeating source whatever drives it.
    if (r.tlEndless && fresh(ev, r)) take(0);
    // Silent since it last reported activity: starved or gone, it cannot prove it stopped — keep the hold window.
    // A realm whose last word was "nothing pending" cannot start anything by itself and may be gone for good.
    if (ev.now - r.at > STALE_MS && (alive || r.pending > 0 || r.intervals > 0 || r.chainPeriod > 0)) take(0);
  }
  for (const a of ev.probe?.anims ?? []) if (a.remaining < 0) take(a.period);
  for (const v of ev.probe?.videos ?? []) if (v.remaining < 0) take(v.period);
  for (const g of ev.images) if (g.plays === 0) take(g.durationMs);
  return repeating ? period : undefined;
}

function scheduled(ev: MotionEvidence): string | undefined {
  if (!ev.loaded) return "loading";
  // A timer chain or interval that has not fired (twice: the first may be the one that made the last change) since
  // the pixels last changed has not shown yet whether it still moves them.
  if (ev.firedSince && ev.lastChange > 0) {
    for (const r of ev.realms) {
      const live = (r.chainPeriod > 0 || r.intervals > 0) && ev.now - r.at <= STALE_MS;
      if (live && ev.firedSince(r.realm, ev.lastChange) < 2) return "repeating source not fired since the last change";
    }
  }
  if (ev.networkBusy) return "network";
  if (!ev.probe) return "not probed yet";
  // A realm silent for long with a timer pending is starved or gone (its frame navigated away): the hold window
  // (see repeatingPeriod) covers the first, and the second must not hold the watch to the time-out.
  if (ev.realms.some((r) => r.pending > 0 && fresh(ev, r))) return "pending timeout";
  // The creative's animation library has a tween, timeline or delayed call still to come (a GSAP storyboard holding
  // a frame longer than any hold window before its next tween).
  if (ev.realms.some((r) => r.tlEnd > ev.now && fresh(ev, r))) return "library timeline";
  if (ev.probe.anims.some((a) => a.remaining > 0)) return "animation";
  if (ev.probe.videos.some((v) => v.remaining > 0)) return "video";
  if (ev.images.some((g) => g.plays > 0 && g.loadedAt + g.durationMs * g.plays > ev.now)) return "animated image";
  return undefined;
}

/**
 * Whether anything in the page could still stop (or change) motion that looks endless: a pending timeout, an
 * interval, a timer chain, a live rAF loop, a listener for the events motion is stopped on (an `infinite` animation
 * stopped on its 3rd iteration), a library timeline with time left, a request in flight. Without any of these an
 * endless source on screen is proven endless; with one, only the time-out can tell.
 */
export function couldStop(ev: MotionEvidence): string | undefined {
  if (ev.networkBusy || !ev.loaded) return "network";
  for (const r of ev.realms) {
    if (!fresh(ev, r)) continue;
    if (r.pending > 0) return "pending timeout";
    if (r.intervals > 0 || r.chainPeriod > 0) return "repeating timer";
    if (rafLive(r, ev.lastChange)) return "animation frame loop";
    if (r.stoppers > 0) return "animation event listener";
    if (r.tlEnd > ev.now) return "library timeline";
  }
  if ((ev.probe?.handlers ?? 0) > 0) return "inline animation event handler";
  return undefined;
}

function endless(ev: MotionEvidence): boolean {
  const p = ev.probe;
  if (!p) return false;
  if (p.anims.some((a) => a.remaining < 0 && a.visible)) return true;
  if (p.videos.some((v) => v.remaining < 0 && v.visible)) return true;
  const shown = new Set(p.images);
  return ev.images.some((g) => g.plays === 0 && shown.has(g.url));
}

/** Longest gap between two bursts of pixel changes: a slideshow's cadence. */
function longestGap(changes: number[]): number {
  let gap = 0;
  for (let i = 1; i < changes.length; i++) gap = Math.max(gap, changes[i]! - changes[i - 1]!);
  return gap;
}

/**
 * How long the pixels must stay still before the watch may call the creative calm. `ticker` false leaves out the
 * rAF hold (rafHoldMs): at the time-out the question is whether the creative was still moving, which its own changes
 * answer (see movingAtDeadline), not whether an unseen storyboard hold might still be running.
 */
export function holdWindow(ev: MotionEvidence, cfg: WatchConfig, ticker = true): number {
  const period = repeatingPeriod(ev);
  if (period === undefined) return cfg.settleMs;
  const hold = Math.max(cfg.holdMs, 1.5 * period + 200);
  return ticker && unvouchedTicker(ev) ? Math.max(hold, cfg.rafHoldMs ?? cfg.holdMs) : hold;
}

/**
 * When the settle window ends: `settleMs` after the last pixel change, or after the last timer callback if later — a
 * timer that just ran may have changed the page without the frame having reached us yet (see RealmReport.lastFire).
 */
export function settleEnd(ev: Pick<MotionEvidence, "lastChange" | "realms">, cfg: WatchConfig): number {
  const lastFire = ev.realms.reduce((t, r) => Math.max(t, r.lastFire || 0), 0);
  return Math.max(ev.lastChange, lastFire) + cfg.settleMs;
}

/** A realm whose word is that nothing of it can run any more: no timer, idle callback or animation frame to come. */
const realmIdle = (r: RealmReport, since: number, now: number) =>
  r.pending === 0 && r.intervals === 0 && r.chainPeriod === 0 && (r.idle ?? 0) === 0 && r.raf < since && r.lastFire < since &&
  r.tlEnd <= now && r.tlEndless === 0;

/**
 * Proof of calm without the settle window (issue 22). A page in which nothing is scheduled — no timer, idle callback
 * or animation frame pending in any realm, no animation (CSS, Web, SMIL) or media running, no request in flight or
 * started since, loaded — cannot change its pixels without an input: once its rendering has caught up, it is still.
 * The proof is two consecutive complete looks at every frame, the first sent after the last pixel change, timer
 * callback and request, each answered by the top document only after two rendered frames (probeMotion), and the
 * second's fresh report from every realm saying nothing ran or was scheduled since the first (a rAF loop would have
 * asked for a frame in between, an IntersectionObserver or load handler run by those frames would have scheduled
 * something). Then the frame the screencast may still be delivering: the first look's rendered frames reach us within
 * twice this scan's capture lag. Whenever any of it is not proven, the settle window decides as before.
 */
export function calmProof(ev: MotionEvidence, cfg: WatchConfig): boolean {
  const [first, second] = ev.looks ?? [];
  if (!first || !second || second.from < first.at) return false;
  // The page has reached the screen at least once (the first paint's frame arrived), and said something.
  if (ev.lastChange <= 0 || ev.realms.length === 0 || !ev.loaded || ev.networkBusy || !ev.networkIdleSince) return false;
  const lastFire = ev.realms.reduce((t, r) => Math.max(t, r.lastFire || 0), 0);
  if (first.from < Math.max(ev.lastChange, lastFire, ev.networkIdleSince)) return false;
  if (ev.requests === undefined || ev.requests !== first.requests) return false;
  for (const l of [first, second]) {
    const p = l.probe;
    if (!p.complete || p.anims.length > 0 || p.videos.length > 0) return false;
  }
  // Animated images play without any script: none may have frames left, none may loop.
  if (ev.images.some((g) => g.plays === 0 || g.loadedAt + g.durationMs * g.plays > first.from)) return false;
  // Every realm idle, by a word from after the second look was sent (a realm not heard since is gone: its frame did
  // not answer the ping, yet the look was complete) — and idle since before the first.
  if (!ev.realms.every((r) => realmIdle(r, first.from, ev.now))) return false;
  if (!ev.realms.some((r) => r.at >= second.from)) return false;
  return ev.now >= calmProofDue(first, ev, cfg);
}

/** When the first look's rendered frames have surely reached the screencast (calmProof's last condition). */
function calmProofDue(first: Look, ev: Pick<MotionEvidence, "captureLagMs">, cfg: WatchConfig): number {
  return first.at + Math.min(cfg.settleMs, 2 * (ev.captureLagMs ?? cfg.settleMs) + 16);
}

/** Whether the watch may end now, and if so whether the creative was still moving. */
export function motionVerdict(ev: MotionEvidence, cfg: WatchConfig): WatchVerdict {
  const still = ev.lastChange > 0 ? ev.now - ev.lastChange : ev.now - ev.renderStart;
  // Endless before the time-out only on proof: an endless source on screen, moving, nothing left in the page that
  // could stop it — and the DOM seen after the last timer callback ran (a timer that just stopped the animation
  // leaves no timer pending while the previous look still shows the animation).
  const lastFire = ev.realms.reduce((t, r) => Math.max(t, r.lastFire || 0), 0);
  const seenSince = (ev.probeFrom ?? 0) > lastFire;
  if (endless(ev) && seenSince && ev.lastChange > 0 && still < 1_000 && ev.now - ev.renderStart >= 2_000 && !couldStop(ev)) {
    return { done: true, stillMoving: true, reason: "endless" };
  }
  const busy = scheduled(ev);
  if (busy) return { done: false };
  if (calmProof(ev, cfg)) return { done: true, stillMoving: false, reason: "calm proven" };
  // Calm must be proven by evidence gathered after the pixels had been still a while, from a renderer that is
  // running: a renderer starved on a busy machine moves nothing, schedules nothing and reports nothing, which would
  // otherwise read exactly like a finished creative.
  const settled = settleEnd(ev, cfg);
  if (ev.realms.length > 0) {
    const heard = Math.max(...ev.realms.map((r) => r.at));
    if (ev.now - heard > FRESH_MS || heard < settled) return { done: false };
  }
  if (!ev.probeAt || ev.probeAt < settled) return { done: false };
  // And that look must have been sent after the last activity: a probe in flight while the last timer ran (answered
  // late on a loaded machine) answered after the settle window yet saw nothing of the frame the timer's change drew —
  // one sent after it answers only once two frames have rendered (probeMotion). Then that frame's way to the screencast.
  if ((ev.probeFrom ?? 0) < settled - cfg.settleMs) return { done: false };
  if (ev.captureLagMs !== undefined && ev.now < ev.probeAt + Math.min(cfg.settleMs, 2 * ev.captureLagMs + 16)) return { done: false };
  if (!ev.networkIdleSince || ev.now - ev.networkIdleSince < NETWORK_IDLE_MS) return { done: false };
  if (still < holdWindow(ev, cfg)) return { done: false };
  if (ev.now < settled) return { done: false };
  return { done: true, stillMoving: false, reason: "calm" };
}

/** At the render time-out: still moving when provably endless, or when the pixels moved within the hold window. */
export function movingAtDeadline(ev: MotionEvidence, cfg: WatchConfig): boolean {
  if (endless(ev)) return ev.lastChange > 0;
  if (ev.changes.length < 2 || ev.lastChange <= 0) return false;
  // A slideshow whose next timer has not fired since its last change (late, on a starved renderer) was still going.
  if (ev.firedSince && ev.realms.some((r) => (r.chainPeriod > 0 || r.intervals > 0) && ev.firedSince!(r.realm, ev.lastChange) < 2)) return true;
  const window = Math.max(holdWindow(ev, cfg, false), cfg.holdMs, 1.5 * longestGap(ev.changes));
  return ev.now - ev.changes[ev.changes.length - 1]! < window;
}

/** Read in each frame's isolated world (page/motion.js): animations with their remaining time, playing videos, visible images. */
const motionProbe = pageFunction<[pingEvent: string | null, afterTwoFrames: boolean]>(new URL("./page/motion.js", import.meta.url), "motionProbe");

/**
 * Probes every frame's isolated world and merges the answers. Frames that do not answer in time are left out and make
 * the probe incomplete; so does a frame tree that could not be read.
 */
export async function probeMotion(worlds: ProbeWorlds, ms: number, pingEvent?: string): Promise<ProbedMotion> {
  const frames = await worlds.frames();
  // First ask the frame's realm for a fresh report (instrument.js), then look: both then speak of the same moment.
  const script = motionProbe(pingEvent ?? null, false);
  // The top document answers only after two rendered frames. A renderer whose main thread runs timers while its
  // frames are starved (the compositor or GPU process without CPU on a loaded machine) otherwise looks calm before
  // the first frames' own work has happened: lazy images start loading and IntersectionObserver callbacks (an ad
  // that starts animating once in view) run from a rendering update. Two, so that what the first one queued has run.
  const afterFrames = motionProbe(pingEvent ?? null, true);
  let topAt: number | undefined;
  const answers = await Promise.all(frames.map((f, i) => (i === 0
    ? worlds.attempt<FrameMotion>(f.id, afterFrames, ms, true).then((a) => { topAt = Date.now(); return a; })
    : worlds.attempt<FrameMotion>(f.id, script, ms))));
  const out: ProbedMotion = { anims: [], videos: [], images: [], handlers: 0, complete: frames.length > 0, ...(topAt !== undefined ? { topAt } : {}) };
  for (const answer of answers) {
    if (!("value" in answer)) {
      if (answer.missing === "hung") out.complete = false;
      continue;
    }
    const a = answer.value;
    if (!a) continue;
    out.anims.push(...(a.anims ?? []).slice(0, 200).map((x) => (Number.isFinite(x.endsAt) ? x : { remaining: x.remaining, period: x.period, visible: x.visible })));
    out.videos.push(...(a.videos ?? []).slice(0, 50));
    out.images.push(...(a.images ?? []).slice(0, 100));
    out.handlers = (out.handlers ?? 0) + Math.min(1_000, Math.max(0, Number(a.handlers) || 0));
  }
  return out;
}

/** A frame loop that asked for a frame this recently, at its realm's report, is still running (clickLoop). */
const LOOP_ALIVE_MS = 150;
/** The page's clock (timeOrigin + performance.now()) against ours (Date.now()): the same wall clock, a few ms apart. */
const CLOCK_SKEW_MS = 200;

/** Latest report per realm, validated: a creative that found a way to talk on the channel can only send numbers. */
export function createRealmTracker() {
  const realms = new Map<string, RealmReport>();
  /** Per realm, (report time, fires) of recent reports, oldest first: enough to look back over a hold window. */
  const history = new Map<string, Array<[number, number]>>();
  const num = (v: unknown) => {
    const n = Number(v);
    return Number.isFinite(n) && n >= 0 ? Math.min(n, 1e13) : 0;
  };
  return {
    note(msg: Partial<RealmReport>): void {
      if (typeof msg.realm !== "string" || msg.realm.length > 32) return;
      if (!realms.has(msg.realm) && realms.size >= 200) return;
      realms.set(msg.realm, {
        t: "motion", realm: msg.realm, pending: num(msg.pending), chainPeriod: num(msg.chainPeriod),
        intervals: num(msg.intervals), intervalPeriod: num(msg.intervalPeriod), raf: num(msg.raf), afterClick: num(msg.afterClick), rafClick: num(msg.rafClick),
        at: num(msg.at), fires: num(msg.fires), lastFire: num(msg.lastFire),
        stoppers: num(msg.stoppers), tlEnd: num(msg.tlEnd), tlDone: msg.tlDone === 1 ? 1 : 0, tlEndless: msg.tlEndless === 1 ? 1 : 0,
        idle: num(msg.idle),
      });
      const h = history.get(msg.realm) ?? [];
      h.push([num(msg.at), num(msg.fires)]);
      if (h.length > 400) h.splice(0, h.length - 400);
      history.set(msg.realm, h);
    },
    /** Callbacks run by the realm's repeating sources since time t (page clock = local clock, epoch ms). */
    firedSince(realm: string, t: number): number {
      const h = history.get(realm);
      if (!h || h.length === 0) return 0;
      let base = 0;
      for (const [at, fires] of h) {
        if (at > t) break;
        base = fires;
      }
      return h[h.length - 1]![1] - base;
    },
    all: (): RealmReport[] => [...realms.values()],
    /** Timeouts a click handler scheduled that have not run yet, over every realm. */
    afterClick: (): number => [...realms.values()].reduce((n, r) => n + r.afterClick, 0),
    /**
     * A frame loop a click at `since` (local epoch ms) started is still asking for frames, by its realm's latest word:
     * it asked for one within LOOP_ALIVE_MS of that report (a tween at even 10 frames a second does).
     */
    clickLoop: (since: number): boolean =>
      [...realms.values()].some((r) => r.rafClick > 0 && r.rafClick >= since - CLOCK_SKEW_MS && r.at - r.raf < LOOP_ALIVE_MS),
  };
}

export interface RenderWatchSources {
  worlds: ProbeWorlds;
  realms: { all(): RealmReport[]; firedSince(realm: string, t: number): number };
  screencast: { lastChange(): number; localChanges(): number[]; artifact?: { lastChangeLagMs: number } };
  network: { busy(): boolean; animatedImages(): AnimatedImage[]; requestCount?(): number };
  /** Local ms of the load event (0 = not yet), and whether the page crashed. */
  page: { loadLocal(): number; loaded(): boolean; crashed(): boolean };
  /** Called on every tick (metrics sampling). */
  onTick?: (now: number) => void;
  /** The event that makes every realm report at once (page-signals.ts): dispatched by each probe. */
  pingEvent?: string;
}

/**
 * Runs the watch from navigation until the verdict, the deadline or an abort. Looks every 50 ms at most (a poll of
 * local state: every decision is taken on evidence, the tick only bounds how late it is noticed), and at once when a
 * probe answers or the settle window ends; the isolated-world probe runs every 200 ms (every second while the page
 * loads), never two at once.
 */
export async function watchRender(src: RenderWatchSources, cfg: WatchConfig, renderStart: number, deadline: number, signal?: AbortSignal) {
  let idleSince = 0;
  let probe: ProbedMotion | undefined;
  let probeAt = 0;
  let probeFrom = 0;
  let probing: Promise<void> | undefined;
  let lastProbe = renderStart;
  /**
   * How many probes ran, and how many of them some frame left unanswered (for the scan log); and how long each waited
   * for the top document's two rendered frames (measurement confidence: frames that stalled while the page was idle).
   */
  const probes = { total: 0, incomplete: 0, frameWaits: [] as FrameWait[] };
  /** The last two complete probes (calmProof). */
  let looks: Look[] = [];
  const ends = createScheduledEndTracker();
  /** The latest end of visible motion the page scheduled and the probes confirmed (epoch ms; see scheduled-motion-end.ts). */
  const scheduledEnd = (now: number) => ends.latest(now);
  const evidence = (now: number): MotionEvidence => ({
    now, renderStart, loaded: src.page.loaded(), networkBusy: src.network.busy(), networkIdleSince: idleSince,
    lastChange: Math.max(src.screencast.lastChange(), src.page.loadLocal()), changes: src.screencast.localChanges(),
    realms: src.realms.all(), firedSince: src.realms.firedSince, probe, probeAt, probeFrom, images: src.network.animatedImages(),
    looks, requests: src.network.requestCount?.(), captureLagMs: src.screencast.artifact?.lastChangeLagMs,
  });
  /**
   * Where the watch's time went, ms after render start (the scan log's `watch_ms`): the load event, the last pixel
   * change, the last timer callback, the moment the network went idle, and the end.
   */
  const timing = (now: number) => {
    const rel = (t: number) => (t > 0 ? Math.round(t - renderStart) : -1);
    const lastFire = src.realms.all().reduce((t, r) => Math.max(t, r.lastFire || 0), 0);
    return { load: rel(src.page.loadLocal()), change: rel(src.screencast.lastChange()), fire: rel(lastFire), net_idle: rel(idleSince), end: rel(now),
      looks: looks.map((l) => [rel(l.from), rel(l.at)]) };
  };
  for (;;) {
    const now = Date.now();
    if (signal?.aborted || src.page.crashed()) return { stillMoving: false, ended: "aborted", probes, scheduledEnd: scheduledEnd(now), timing: timing(now) };
    if (now >= deadline) return { stillMoving: movingAtDeadline(evidence(now), cfg), ended: "deadline", probes, scheduledEnd: scheduledEnd(now), timing: timing(now) };
    src.onTick?.(now);
    if (!src.network.busy()) idleSince ||= now;
    else idleSince = 0;
    // Besides every 200 ms, a probe right when the pixels have been still for the settle window: a calm verdict
    // needs one from after that moment, and waiting for the next regular one would only add latency.
    const ev0 = evidence(now);
    const settledAt = settleEnd(ev0, cfg);
    // Seldom while the page loads: no calm verdict is possible before `load`, and the probe would compete with the
    // first paint; but a page whose `load` never comes still needs probing for endless motion.
    const every = ev0.loaded ? 200 : 1_000;
    // And back to back while the page looks idle, from the moment its last activity ended: the two looks of a proof of
    // calm (calmProof). Only a look that answered may be followed at once; the proof itself checks everything.
    const activeUntil = Math.max(settledAt - cfg.settleMs, ev0.networkIdleSince);
    const lastLook = looks[looks.length - 1];
    const paired = looks.length === 2 && looks[0]!.from >= activeUntil;
    // Not while the last look saw animations or media, nor while an animated image plays: probes run on the renderer's
    // main thread, whose CPU is the creative's figure, so a moving creative keeps the ordinary cadence.
    const idleNow = ev0.loaded && !ev0.networkBusy && ev0.lastChange > 0 && !!ev0.networkIdleSince &&
      ev0.realms.length > 0 && ev0.realms.every((r) => r.pending === 0 && r.intervals === 0 && r.chainPeriod === 0 && now - r.raf > 100) &&
      (!probe || (probe.anims.length === 0 && probe.videos.length === 0)) &&
      ev0.images.every((g) => g.plays > 0 && g.loadedAt + g.durationMs * g.plays <= now);
    const proving = idleNow && !paired && (lastProbe < activeUntil || (!!lastLook && lastProbe <= lastLook.from));
    if (!probing && (now - lastProbe >= every || (ev0.loaded && now >= settledAt && probeAt < settledAt && lastProbe < settledAt) || proving)) {
      lastProbe = now;
      // Only a complete probe dates the evidence: calm needs every frame's word from after the settle window began.
      const sent = now;
      const requests = src.network.requestCount?.() ?? -1;
      probing = probeMotion(src.worlds, 1_000, src.pingEvent).then((p) => {
        probe = p;
        if (p.complete) looks = [...looks.slice(-1), { from: sent, at: Date.now(), probe: p, requests }];
        else looks = [];
        if (p.complete) ends.observe(Date.now(), p.anims.filter((a) => a.visible && a.endsAt !== undefined).map((a) => a.endsAt!));
        probeFrom = sent;
        probeAt = p.complete ? Date.now() : 0;
        probes.total++;
        if (!p.complete) probes.incomplete++;
        if (p.topAt !== undefined && probes.frameWaits.length < 600) probes.frameWaits.push({ from: sent, to: p.topAt });
      }, () => {}).finally(() => { probing = undefined; });
    }
    const verdict = motionVerdict(ev0, cfg);
    if (verdict.done) return { stillMoving: verdict.stillMoving, ended: verdict.reason, probes, scheduledEnd: scheduledEnd(now), timing: timing(now) };
    // The next look: at the next tick, at the moment the settle window ends if sooner, or as soon as a probe answers
    // (new evidence, and the realms' reports it asked for arrive just before it).
    // Likewise the moment a proof of calm whose looks are in waits for (the first look's frames on their way to us).
    const due = [settledAt, looks.length === 2 ? calmProofDue(looks[0]!, ev0, cfg) : 0].map((t) => t - now).filter((ms) => ms > 0 && ms < 50);
    const waitMs = due.length > 0 ? Math.min(...due) : 50;
    const answered = probing;
    await new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(t);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const t = setTimeout(finish, waitMs);
      signal?.addEventListener("abort", finish, { once: true });
      void answered?.then(finish, finish);
    });
  }
}
