// The render watch's decisions are pure functions of evidence: each rule checked here without a browser.
import { describe, expect, it } from "vitest";
import { gifAnimation } from "../src/gatherers/gif-animation.ts";
import type { RealmReport } from "../src/gatherers/instrument.ts";
import type { ProbeAnswer, ProbeWorlds } from "../src/gatherers/probe-world.ts";
import { createRealmTracker, motionVerdict, movingAtDeadline, probeMotion, type MotionEvidence } from "../src/gatherers/render-watch.ts";
import { PIXEL_GIF } from "./helpers.ts";

const cfg = { settleMs: 300, holdMs: 4_500 };
const realm = (o: Partial<RealmReport> = {}): RealmReport =>
  ({
    t: "motion", realm: "top", pending: 0, chainPeriod: 0, intervals: 0, intervalPeriod: 0, raf: 0, afterClick: 0, rafClick: 0, at: 9_900, fires: 0, lastFire: 0,
    stoppers: 0, tlEnd: 0, tlDone: 0, tlEndless: 0, idle: 0, ...o,
  });
const ev = (o: Partial<MotionEvidence> = {}): MotionEvidence => ({
  now: 10_000, renderStart: 0, loaded: true, networkBusy: false, networkIdleSince: 1_000, lastChange: 5_000, changes: [1_000, 5_000],
  probe: { anims: [], videos: [], images: [], complete: true }, images: [], ...o,
  // Fresh evidence by default: the creative's world reported and the DOM was probed just now.
  ...(o.probeAt === undefined ? { probeAt: (o.now ?? 10_000) - 10 } : {}),
  ...(o.probeFrom === undefined ? { probeFrom: (o.now ?? 10_000) - 60 } : {}),
  realms: (o.realms ?? [realm()]).map((r) => ({ ...r, at: r.at === 9_900 && o.now !== undefined ? o.now - 100 : r.at })),
});

describe("render watch verdict", () => {
  it("calm needs fresh evidence from a running renderer, gathered after the pixels had settled", () => {
    // A starved renderer: its last report is old, or the DOM probe answered before the stillness began.
    expect(motionVerdict(ev({ now: 6_000, realms: [realm({ at: 5_000 })] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ now: 6_000, realms: [realm({ at: 5_200 })] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ now: 6_000, probeAt: 5_100 }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ now: 6_000, probeAt: 5_900 }), cfg).done).toBe(true);
  });

  it("a calm page ends after the settle time", () => {
    expect(motionVerdict(ev({ now: 5_200 }), cfg)).toEqual({ done: false });
    expect(motionVerdict(ev({ now: 5_400 }), cfg)).toMatchObject({ done: true, stillMoving: false });
  });

  it("a page proven idle ends without the settle window: two looks after its last activity, every realm idle", () => {
    // Last pixel change at 5 000; looks at 5 010 → 5 040 and 5 040 → 5 070; capture lag 20 ms; realms pinged at 5 045.
    const calm = { anims: [], videos: [], images: [], complete: true };
    const looks = [{ from: 5_010, at: 5_040, probe: calm, requests: 3 }, { from: 5_040, at: 5_070, probe: calm, requests: 3 }];
    const proof = (o: Partial<MotionEvidence> = {}) =>
      ev({ now: 5_100, lastChange: 5_000, networkIdleSince: 4_000, looks, requests: 3, captureLagMs: 20, realms: [realm({ at: 5_045 })], ...o });
    expect(motionVerdict(proof(), cfg)).toEqual({ done: true, stillMoving: false, reason: "calm proven" });
    // The frame the first look's rendering drew may still be on its way: twice the capture lag (+16 ms) after that look.
    expect(motionVerdict(proof({ now: 5_060 }), cfg).done).toBe(false);
    expect(motionVerdict(proof({ captureLagMs: 200 }), cfg).done).toBe(false);
    // Each thing that could still move the pixels leaves it to the settle window (5 300 here).
    const notProven: Array<Partial<MotionEvidence>> = [
      { realms: [realm({ at: 5_045, pending: 1 })] }, // a timer pending, however far away (a 4 s one fires and is watched)
      { realms: [realm({ at: 5_045, idle: 1 })] }, // an idle callback pending
      { realms: [realm({ at: 5_045, raf: 5_020 })] }, // an animation frame asked for between the looks
      { realms: [realm({ at: 5_045, lastFire: 5_030 })] }, // a timer callback ran after the first look was sent
      { realms: [realm({ at: 5_030 })] }, // no realm's word from after the second look was sent
      { realms: [] },
      { requests: 4 }, // a request started (and maybe ended) since the first look
      { lastChange: 5_020 }, // the pixels changed after the first look was sent
      { networkIdleSince: 5_020 },
      { looks: [looks[0]!] },
      { looks: [looks[0]!, { ...looks[1]!, from: 5_030 }] }, // the second look overlaps the first's frames
      { looks: [looks[0]!, { ...looks[1]!, probe: { ...calm, complete: false } }] },
      { looks: [looks[0]!, { ...looks[1]!, probe: { ...calm, anims: [{ remaining: 0, period: 1_000, visible: true }] } }] },
      { images: [{ url: "a.gif", loadedAt: 1_000, durationMs: 500, plays: 0 }] },
      { captureLagMs: undefined },
    ];
    for (const o of notProven) expect(motionVerdict(proof(o), cfg)).toMatchObject({ done: false });
    // A finished animated GIF does not hold the proof.
    expect(motionVerdict(proof({ images: [{ url: "a.gif", loadedAt: 1_000, durationMs: 500, plays: 2 }] }), cfg).done).toBe(true);
    // A timer pending 4 s away is still watched until it fires: no calm verdict of either kind at 9 000.
    expect(motionVerdict(proof({ now: 9_000, realms: [realm({ at: 8_990, pending: 1 })] }), cfg).done).toBe(false);
  });

  it("the settle time also runs from the last timer callback, whose change may not have been painted yet", () => {
    // A slideshow's last timer fired at 9 800 (nothing pending after it); its frame has not reached us by 10 000.
    const fired = realm({ lastFire: 9_800 });
    expect(motionVerdict(ev({ now: 10_000, realms: [fired] }), cfg)).toEqual({ done: false });
    expect(motionVerdict(ev({ now: 10_150, realms: [{ ...fired, at: 10_120 }] }), cfg).done).toBe(true);
    // A probe sent before that timer ran and answered late (a loaded machine, CI: sent 4 989, fired 6 164, answered
    // 6 585, calm at 6 636 before the 6 s frame arrived) saw nothing of its frame: a look sent after it must answer.
    expect(motionVerdict(ev({ now: 10_150, probeFrom: 9_700, probeAt: 10_140, realms: [{ ...fired, at: 10_120 }] }), cfg).done).toBe(false);
    // And the frame that look's rendering drew gets twice the capture lag to reach the screencast.
    expect(motionVerdict(ev({ now: 10_150, probeAt: 10_140, captureLagMs: 60, realms: [{ ...fired, at: 10_120 }] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ now: 10_280, probeAt: 10_140, captureLagMs: 60, realms: [{ ...fired, at: 10_250 }] }), cfg).done).toBe(true);
  });

  it("anything one-shot still scheduled keeps the watch, however still the pixels", () => {
    const still = { now: 60_000 };
    expect(motionVerdict(ev({ ...still, loaded: false }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...still, networkBusy: true, networkIdleSince: 0 }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...still, probe: undefined }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...still, realms: [realm({ pending: 1, at: 59_900 })] }), cfg).done).toBe(false);
    // A CSS animation waiting out its 3 s animation-delay is "running" with time left.
    expect(motionVerdict(ev({ ...still, probe: { anims: [{ remaining: 1_000, period: 1_000, visible: true }], videos: [], images: [], complete: true } }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...still, probe: { anims: [], videos: [{ remaining: 2_000, period: 5_000, visible: true }], images: [], complete: true } }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...still, images: [{ url: "a.gif", loadedAt: 59_000, durationMs: 3_000, plays: 1 }] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...still, images: [{ url: "a.gif", loadedAt: 50_000, durationMs: 3_000, plays: 1 }] }), cfg).done).toBe(true);
  });

  it("a repeating source (rAF ticker, interval, timer chain) needs the hold window, longer for long periods", () => {
    const raf = realm({ raf: 9_890 });
    expect(motionVerdict(ev({ now: 9_000, lastChange: 5_000, realms: [realm({ raf: 8_990, at: 8_995 })] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ now: 10_000, lastChange: 5_000, realms: [raf] }), cfg)).toMatchObject({ done: true, stillMoving: false });
    // A ticker that kept calling rAF after the last change is alive even when its calls are far apart.
    expect(motionVerdict(ev({ now: 8_000, lastChange: 5_000, realms: [realm({ raf: 6_000, at: 7_900 })] }), cfg).done).toBe(false);
    // On a busy machine the last rAF call is judged against when the realm reported, not against Node's clock.
    expect(motionVerdict(ev({ now: 6_000, lastChange: 5_000, realms: [realm({ raf: 5_500, at: 5_600 })] }), cfg).done).toBe(false);
    // A slideshow on a 6 s interval: 1.5 periods without change before concluding it stopped.
    const slow = [realm({ intervals: 1, intervalPeriod: 6_000 })];
    expect(motionVerdict(ev({ now: 14_000, lastChange: 5_000, realms: slow }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ now: 14_300, lastChange: 5_000, realms: slow }), cfg).done).toBe(true);
    expect(motionVerdict(ev({ now: 9_000, lastChange: 5_000, realms: [realm({ chainPeriod: 3_000 })] }), cfg).done).toBe(false);
    // A chain whose next timer fires late on a busy machine: not judged until it fired again without a change.
    const late = { now: 12_000, lastChange: 5_000, realms: [realm({ chainPeriod: 3_000, at: 11_900 })] };
    expect(motionVerdict(ev({ ...late, firedSince: () => 1 }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...late, firedSince: () => 2 }), cfg).done).toBe(true);
  });

  it("a realm gone silent after reporting activity cannot prove it stopped; one silent after idling can", () => {
    expect(motionVerdict(ev({ now: 6_000, lastChange: 5_000, realms: [realm({ raf: 3_000, at: 3_100 })] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ now: 6_000, lastChange: 5_000, realms: [realm({ pending: 1, at: 3_100 })] }), cfg).done).toBe(false);
    // ...but a timer pending in a realm silent for good holds the watch for the hold window only, not to the time-out.
    expect(motionVerdict(ev({ now: 9_600, lastChange: 5_000, realms: [realm({ realm: "top", at: 9_500 }), realm({ pending: 1, at: 3_100 })] }), cfg).done).toBe(true);
    const top = realm({ realm: "top", at: 5_950 });
    expect(motionVerdict(ev({ now: 6_000, lastChange: 5_000, realms: [top, realm({ realm: "gone", at: 3_100 })] }), cfg).done).toBe(true);
  });

  it("no word at all from the creative's world is treated as a repeating source", () => {
    expect(motionVerdict(ev({ now: 6_000, realms: [] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ now: 9_600, realms: [] }), cfg).done).toBe(true);
  });

  it("a visible endless animation that is moving ends at once with -1; a hidden one does not", () => {
    const inf = (visible: boolean) => ({ anims: [{ remaining: -1, period: 1_000, visible }], videos: [], images: [], complete: true });
    expect(motionVerdict(ev({ now: 3_000, lastChange: 2_950, probe: inf(true) }), cfg)).toMatchObject({ done: true, stillMoving: true });
    expect(motionVerdict(ev({ now: 3_000, lastChange: 2_950, probe: inf(false) }), cfg).done).toBe(false);
    const loopingGif = { url: "https://x/a.gif", loadedAt: 0, durationMs: 2_000, plays: 0 };
    expect(motionVerdict(ev({ now: 3_000, lastChange: 2_950, images: [loopingGif], probe: { anims: [], videos: [], images: ["https://x/a.gif"], complete: true } }), cfg))
      .toMatchObject({ done: true, stillMoving: true });
  });

  it("endless before the time-out only when nothing in the page could stop the motion", () => {
    const inf = { anims: [{ remaining: -1, period: 1_200, visible: true }], videos: [], images: [], complete: true };
    const moving = { now: 3_000, lastChange: 2_950, probe: inf };
    expect(motionVerdict(ev(moving), cfg)).toMatchObject({ done: true, stillMoving: true });
    // An `infinite` animation whose own script stops it on its 3rd animationiteration: a listener is registered.
    expect(motionVerdict(ev({ ...moving, realms: [realm({ stoppers: 1, at: 2_900 })] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...moving, probe: { ...inf, handlers: 1 } }), cfg).done).toBe(false);
    // A looping video paused by a timer at 4 s; a ticker or interval that may stop it; a request in flight.
    expect(motionVerdict(ev({ ...moving, realms: [realm({ pending: 1, at: 2_900 })] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...moving, realms: [realm({ raf: 2_890, at: 2_900 })] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...moving, realms: [realm({ intervals: 1, intervalPeriod: 100, at: 2_900 })] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...moving, networkBusy: true, networkIdleSince: 0 }), cfg).done).toBe(false);
    // A timer that just stopped it: the last look at the DOM is from before the timer ran, so it proves nothing.
    expect(motionVerdict(ev({ ...moving, realms: [realm({ lastFire: 2_960, at: 2_990 })] }), cfg).done).toBe(false);
    expect(motionVerdict(ev({ ...moving, probeFrom: 2_970, realms: [realm({ lastFire: 2_960, at: 2_990 })] }), cfg).done).toBe(true);
    // Still moving at the time-out: -1 then, with the same evidence.
    expect(movingAtDeadline(ev({ ...moving, now: 30_000, lastChange: 29_990, changes: [1_000, 29_990], realms: [realm({ stoppers: 1, at: 29_900 })] }), cfg)).toBe(true);
  });

  it("a live rAF ticker nobody vouches for holds rafHoldMs (storyboard holds up to 10 s); a library that says done, holdMs", () => {
    const long = { ...cfg, rafHoldMs: 11_500 };
    const ticker = (o: Partial<RealmReport> = {}) => (now: number) => ev({ now, lastChange: 1_000, changes: [500, 1_000], realms: [realm({ raf: now - 10, at: now - 5, ...o })] });
    // A 1 s tween, then a 10 s hold under the ticker: not over at 6 s nor at 11 s.
    expect(motionVerdict(ticker()(6_000), long).done).toBe(false);
    expect(motionVerdict(ticker()(11_000), long).done).toBe(false);
    expect(motionVerdict(ticker()(12_600), long)).toMatchObject({ done: true, stillMoving: false });
    // Adobe Animate whose root clip stopped (CreateJS says done): the ordinary hold window.
    expect(motionVerdict(ticker({ tlDone: 1 })(6_000), long)).toMatchObject({ done: true, stillMoving: false });
    // A GSAP timeline with a tween still to come at 20 s holds the watch past any window.
    expect(motionVerdict(ticker({ tlEnd: 20_000 })(15_000), long).done).toBe(false);
    expect(motionVerdict(ticker({ tlEnd: 20_000, tlDone: 1 })(15_000), long).done).toBe(false);
    // A ticker that ran on after the last change and then fell asleep is not alive for ever after.
    expect(motionVerdict(ev({ now: 9_000, lastChange: 1_000, changes: [500, 1_000], realms: [realm({ raf: 3_000, at: 8_950 })] }), long).done).toBe(true);
    // At the time-out the ticker's unseen holds do not make a creative still for 10 s "still moving".
    expect(movingAtDeadline(ticker()(20_000), long)).toBe(false);
  });

  it("at the time-out: moving if the pixels changed within the hold window or the creative's own cadence", () => {
    expect(movingAtDeadline(ev({ now: 30_000, changes: [1_000, 28_000], lastChange: 28_000 }), cfg)).toBe(true);
    expect(movingAtDeadline(ev({ now: 30_000, changes: [1_000, 2_000], lastChange: 2_000 }), cfg)).toBe(false);
    // A slideshow changing every 8 s, last change 7 s ago: still moving.
    expect(movingAtDeadline(ev({ now: 30_000, changes: [7_000, 15_000, 23_000], lastChange: 23_000 }), cfg)).toBe(true);
    expect(movingAtDeadline(ev({ now: 30_000, changes: [100], lastChange: 100 }), cfg)).toBe(false);
    // A slideshow whose next slide is overdue (its chain has not fired since the last change) was still going...
    const chain = { now: 30_000, changes: [1_000, 3_000], lastChange: 3_000, realms: [realm({ chainPeriod: 3_000 })] };
    expect(movingAtDeadline(ev({ ...chain, firedSince: () => 0 }), cfg)).toBe(true);
    // ...a ticker chain that fired on and on without changing anything had stopped.
    expect(movingAtDeadline(ev({ ...chain, firedSince: () => 700 }), cfg)).toBe(false);
  });

  it("the realm tracker keeps only bounded numbers from whatever reaches the channel", () => {
    const t = createRealmTracker();
    t.note({ t: "motion", realm: "x", pending: "lots" as unknown as number, intervals: NaN, raf: Infinity, afterClick: -3, tlDone: 7, stoppers: -1 });
    expect(t.all()).toEqual([realm({ realm: "x", at: 0 })]);

    t.note({ t: "motion", realm: "y".repeat(100), pending: 1 });
    expect(t.all()).toHaveLength(1);
    for (let i = 0; i < 500; i++) t.note({ t: "motion", realm: `r${i}`, afterClick: 1 });
    expect(t.all().length).toBeLessThanOrEqual(200);
    expect(t.afterClick()).toBe(199);
    const h = createRealmTracker();
    h.note({ t: "motion", realm: "c", at: 1_000, fires: 3 });
    h.note({ t: "motion", realm: "c", at: 2_000, fires: 5 });
    h.note({ t: "motion", realm: "c", at: 3_000, fires: 9 });
    expect(h.firedSince("c", 2_500)).toBe(4);
    expect(h.firedSince("c", 500)).toBe(9);
  });

  it("a frame loop the click started runs while its realm's latest report says it asked for a frame just before", () => {
    const t = createRealmTracker();
    const click = 50_000;
    // Its first frame asked for 5 ms after the click, reported at once.
    t.note({ t: "motion", realm: "ad", rafClick: click + 5, raf: click + 5, at: click + 5 });
    expect(t.clickLoop(click)).toBe(true);
    // A heartbeat 100 ms on: it asked for a frame 12 ms before — still running.
    t.note({ t: "motion", realm: "ad", rafClick: click + 5, raf: click + 93, at: click + 105 });
    expect(t.clickLoop(click)).toBe(true);
    // The tween ended at +400 ms: the report at +605 ms has its last frame 205 ms old.
    t.note({ t: "motion", realm: "ad", rafClick: click + 5, raf: click + 400, at: click + 605 });
    expect(t.clickLoop(click)).toBe(false);
    // A loop an earlier click started is not this click's.
    const u = createRealmTracker();
    u.note({ t: "motion", realm: "ad", rafClick: click - 2_000, raf: click - 10, at: click - 5 });
    expect(u.clickLoop(click)).toBe(false);
  });
});

/** A GIF built from blocks: header + logical screen (no global table), optional NETSCAPE loop, frames with delays. */
function gif(delaysCs: number[], loops?: number): Uint8Array {
  const b: number[] = [..."GIF89a"].map((c) => c.charCodeAt(0));
  b.push(1, 0, 1, 0, 0, 0, 0);
  if (loops !== undefined) b.push(0x21, 0xff, 11, ..."NETSCAPE2.0".split("").map((c) => c.charCodeAt(0)), 3, 1, loops & 255, loops >> 8, 0);
  for (const d of delaysCs) {
    b.push(0x21, 0xf9, 4, 0, d & 255, d >> 8, 0, 0);
    b.push(0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0);
  }
  b.push(0x3b);
  return new Uint8Array(b);
}

describe("motion probe", () => {
  const delayed = { anims: [{ remaining: 2_000, period: 1_000, visible: true }], videos: [], images: [] };
  const worlds = (answers: Record<string, ProbeAnswer<unknown>>, frames = Object.keys(answers)): ProbeWorlds => ({
    frames: async () => frames.map((id) => ({ id, url: "https://x/" })),
    evaluate: async () => undefined,
    attempt: async <T>(id: string) => answers[id] as ProbeAnswer<T>,
  });

  it("merges every frame's answer; a frame gone meanwhile leaves it complete", async () => {
    const p = await probeMotion(worlds({ top: { value: delayed }, gone: { missing: "failed" } }), 1_000);
    expect(p).toMatchObject({ complete: true, anims: delayed.anims });
  });

  it("a frame that does not answer in time, or an unreadable frame tree, is no evidence of calm", async () => {
    // Under load a probe can time out: read as "no animations" it ended a delayed CSS animation's watch at once.
    const p = await probeMotion(worlds({ top: { value: { anims: [], videos: [], images: [] } }, busy: { missing: "hung" } }), 1_000);
    expect(p.complete).toBe(false);
    expect((await probeMotion(worlds({}, []), 1_000)).complete).toBe(false);
    // Such a probe leaves the evidence undated, so no calm verdict follows from it.
    expect(motionVerdict(ev({ probe: p, probeAt: 0 }), cfg).done).toBe(false);
  });
});

describe("GIF timing", () => {
  it("reads frame delays and loop count as browsers play them", () => {
    expect(gifAnimation(gif([100, 100, 100]))).toEqual({ frames: 3, durationMs: 3_000, plays: 1 });
    expect(gifAnimation(gif([50, 50], 0))).toEqual({ frames: 2, durationMs: 1_000, plays: 0 });
    expect(gifAnimation(gif([50, 50], 2))).toEqual({ frames: 2, durationMs: 1_000, plays: 3 });
    // Delays of 0 or 1 cs are shown as 100 ms.
    expect(gifAnimation(gif([0, 1]))?.durationMs).toBe(200);
    expect(gifAnimation(new Uint8Array(PIXEL_GIF))).toMatchObject({ frames: 1, durationMs: 0 });
    expect(gifAnimation(new Uint8Array([1, 2, 3]))).toBeUndefined();
    expect(gifAnimation(gif([10, 10]).subarray(0, 40))).toBeDefined(); // truncated: what was read
  });
});
