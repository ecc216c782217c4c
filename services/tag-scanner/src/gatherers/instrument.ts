// The script every document of a scan runs before the creative's own code (Page.addScriptToEvaluateOnNewDocument),
// reporting to Node through a CDP binding (Runtime.addBinding) whose name is random per scan.
//
// Only what must live in the creative's own JavaScript world lives here: the creative's calls to setTimeout,
// setInterval, requestAnimationFrame and document.write can only be seen by wrapping them where it calls them.
// Everything that can be read from the DOM (layout, animations, videos, the click point) is probed from an isolated
// world instead (probe-world.ts), where the creative cannot reach.
//
// Against a creative that tries to forge its report: every native this script uses is captured before the creative
// runs (Reflect.apply, JSON.stringify, performance.now, the timer functions), bookkeeping uses null-prototype objects
// and plain counters (no Set/Map methods a creative could replace), and the binding is captured and then deleted from
// the global object, so the creative can neither find nor call it. Node validates and bounds every message anyway.
//
// Chromium does not run new-document scripts in the initial about:blank document of a script-created iframe, which
// is exactly where ad servers document.write their "friendly iframe" creatives, and `frames[0].setTimeout` reaches
// such a realm without any getter we could wrap. So every DOM insertion API is wrapped: after an insertion that added
// frames, each new same-origin frame is instrumented before the creative's next statement runs.
//
// Page-side code is kept as plain JavaScript text: functions serialized with toString() break under transpilers
// that inject helpers (tsx's keepNames adds `__name(...)` calls that do not exist in the page).

/** What one realm (document) says about work that can still move pixels. Times are epoch ms. */
export interface RealmReport {
  t: "motion";
  realm: string;
  /** One-shot timeouts pending that are due before the horizon. */
  pending: number;
  /** Largest delay among pending timeouts scheduled from a timer callback (a setTimeout chain = a repeating source). */
  chainPeriod: number;
  /** Live intervals, and the largest period among them. */
  intervals: number;
  intervalPeriod: number;
  /** Last requestAnimationFrame call (0 = never). */
  raf: number;
  /** Timeouts pending that were scheduled within 5 s after a trusted pointer event (a click handler's work). */
  afterClick: number;
  /** When the report was made: judged against `raf`, so a report delayed on a busy machine still reads right. */
  at: number;
  /**
   * Callbacks run so far by the repeating sources (timer chains, intervals). A repeating source counts as having
   * stopped moving pixels only after it fired without changing them: time alone would misjudge a page whose timers
   * fire late on a busy machine.
   */
  fires: number;
  /**
   * When a timeout or interval callback last ran (0 = never). What it changed may reach the screen only a frame or
   * more later — on a busy machine, much later — so stillness is counted from it as well as from the last pixel change.
   */
  lastFire: number;
}

export type PageSignal =
  | { t: "dw" }
  | { t: "paint"; name: string; at: number }
  | { t: "video" }
  | RealmReport;

/** Timers due later than this (from when they are set) cannot move pixels within any render window we use. */
const HORIZON_MS = 60_000;

/** What the render watch's probe dispatches on each frame's window to get a fresh report from its realm. */
export const pingEventOf = (bindingName: string): string => `${bindingName}_ping`;

export function instrumentSource(bindingName: string): string {
  // Strict mode: `arguments` must not alias the parameters, since the wrappers replace arguments[0].
  return `(() => {
  "use strict";
  const BINDING = ${JSON.stringify(bindingName)};
  const HORIZON = ${HORIZON_MS};
  const apply = Reflect.apply, stringify = JSON.stringify, defineProperty = Object.defineProperty;
  const getDesc = Object.getOwnPropertyDescriptor;
  let bind;
  try { bind = self[BINDING]; delete self[BINDING]; } catch (e) {}
  if (typeof bind !== "function") return;
  const send = (msg) => { try { apply(bind, undefined, [apply(stringify, JSON, [msg])]); } catch (e) {} };
  const once = Object.create(null);
  const sendOnce = (key, msg) => { if (once[key]) return; once[key] = true; send(msg); };
  // A realm is instrumented once, whoever gets there first (its own new-document script, or a parent that reached
  // into it): our setTimeout wrapper carries a mark named after the per-scan secret. No marker on the window itself,
  // where the creative would look first; the mark reveals nothing it could use (the binding is already gone).
  const MARK = BINDING + "_w";
  const PING = ${JSON.stringify(pingEventOf(bindingName))};
  const install = (w) => {
    try {
      if (w.setTimeout[MARK]) return;
      try { delete w[BINDING]; } catch (e) {}
    } catch (e) { return; }
    const realm = Math.random().toString(36).slice(2, 12);
    const perf = w.performance, pnow = perf.now, timeOrigin = perf.timeOrigin;
    const now = () => timeOrigin + apply(pnow, perf, []);
    const st = w.setTimeout, ct = w.clearTimeout, si = w.setInterval, ci = w.clearInterval, raf = w.requestAnimationFrame;
    // id -> { due, period, chain, afterClick }; null prototype: nothing of the creative's can intercept it.
    const timeouts = Object.create(null), intervals = Object.create(null);
    let inTimer = 0, fires = 0, lastFire = 0, lastRaf = 0, lastPointer = 0, queued = false, dirty = false, ticks = 0;
    const report = () => {
      let pending = 0, chainPeriod = 0, nIntervals = 0, intervalPeriod = 0, afterClick = 0;
      const t = now();
      for (const id in timeouts) {
        const r = timeouts[id];
        if (r.due < t - 1000) { delete timeouts[id]; continue; } // a string timer that ran, or one we never saw fire
        if (r.chain) chainPeriod = Math.max(chainPeriod, r.period); else pending++;
        if (r.afterClick) afterClick++;
      }
      for (const id in intervals) { nIntervals++; intervalPeriod = Math.max(intervalPeriod, intervals[id]); }
      send({ t: "motion", realm, pending, chainPeriod, intervals: nIntervals, intervalPeriod, raf: lastRaf, afterClick, at: t, fires, lastFire });
    };
    const changed = () => {
      dirty = true;
      if (queued) return;
      queued = true;
      apply(st, w, [() => { queued = false; dirty = false; report(); }, 50]);
    };
    try {
      const onPointer = (e) => { if (e.isTrusted) lastPointer = now(); };
      for (const type of ["pointerdown", "mousedown", "click", "touchstart"]) w.addEventListener(type, onPointer, true);
    } catch (e) {}
    try {
      const proto = w.Document.prototype;
      for (const name of ["write", "writeln"]) {
        const orig = proto[name];
        defineProperty(proto, name, { configurable: true, writable: true, enumerable: true,
          value: function () { sendOnce("dw", { t: "dw" }); const r = apply(orig, this, arguments); scanFrames(); return r; } });
      }
    } catch (e) {}
    try {
      // paintTime: the rendering update that painted, on the main thread's clock like the creative's own timers.
      // startTime is when the frame was presented, which a busy GPU process delays by up to seconds on a loaded
      // machine: counted from there, a 6 s slideshow measured 4.1 s in CI. The getters are the natives, taken
      // before the creative runs: a creative that redefines them must not move its own time to visual start.
      const getter = (proto, name) => { try { const d = getDesc(proto, name); return d && d.get; } catch (e) {} };
      const entryName = getter(w.PerformanceEntry.prototype, "name"), startTime = getter(w.PerformanceEntry.prototype, "startTime");
      const paintTime = w.PerformancePaintTiming && getter(w.PerformancePaintTiming.prototype, "paintTime");
      const getEntries = w.PerformanceObserverEntryList.prototype.getEntries;
      new w.PerformanceObserver((list) => {
        const entries = apply(getEntries, list, []);
        for (let i = 0; i < entries.length && i < 10; i++) {
          const e = entries[i];
          const at = (paintTime && apply(paintTime, e, [])) || apply(startTime, e, []);
          send({ t: "paint", name: String(apply(entryName, e, [])), at: timeOrigin + at });
        }
      }).observe({ type: "paint", buffered: true });
    } catch (e) {}
    try {
      w.document.addEventListener("playing", () => sendOnce("video", { t: "video" }), true);
    } catch (e) {}
    try {
      w.setTimeout = function (fn, delay) {
        const args = arguments;
        const d = Math.max(0, Number(delay) || 0);
        const rec = { due: now() + d, period: d, chain: inTimer > 0, afterClick: lastPointer > 0 && now() - lastPointer < 5000 && d <= 10000 };
        let id;
        if (typeof fn === "function") {
          args[0] = function () {
            const rec = timeouts[id];
            if (rec && rec.chain) fires++;
            delete timeouts[id];
            inTimer++;
            try { return apply(fn, this, arguments); } finally { inTimer--; lastFire = now(); changed(); }
          };
        }
        id = apply(st, w, args);
        // A click handler's timer is reported at once: the landing-page step must not conclude "nothing" meanwhile.
        if (d <= HORIZON) { timeouts[id] = rec; if (rec.afterClick) report(); else changed(); }
        return id;
      };
      defineProperty(w.setTimeout, MARK, { value: true });
      w.clearTimeout = function (id) { if (timeouts[id]) { delete timeouts[id]; changed(); } return apply(ct, w, arguments); };
      w.setInterval = function (fn, delay) {
        const args = arguments;
        const d = Math.max(4, Number(delay) || 0);
        if (typeof fn === "function") {
          args[0] = function () { fires++; inTimer++; try { return apply(fn, this, arguments); } finally { inTimer--; lastFire = now(); } };
        }
        const id = apply(si, w, args);
        if (d <= HORIZON) { intervals[id] = d; changed(); }
        return id;
      };
      w.clearInterval = function (id) { if (intervals[id] !== undefined) { delete intervals[id]; changed(); } return apply(ci, w, arguments); };
      if (raf) w.requestAnimationFrame = function () { lastRaf = now(); return apply(raf, w, arguments); };
      // Our own heartbeat (untracked native timer): keeps the rAF time fresh for Node, which reads "a rAF loop is
      // running" from it, and is the fresh word a calm verdict waits for — every 100 ms while a render watch is
      // typically deciding (the first 10 s), then every 250 ms. Bounded so that an abandoned page stops talking.
      const beat = () => { if (!dirty) report(); if (++ticks < 460) apply(st, w, [beat, ticks < 100 ? 100 : 250]); };
      apply(st, w, [beat, 0]);
      // A report on demand: the render watch's isolated-world probe dispatches this (per-scan secret) event on the
      // window first, so the calm verdict need not wait for the next heartbeat. Anyone firing it gets only a report.
      apply(w.addEventListener, w, [PING, () => report(), true]);
    } catch (e) {}
    // Frames: instrument a child realm as soon as the creative can reach it.
    let lenGet;
    try { const d = getDesc(w, "length"); lenGet = d && d.get; } catch (e) {}
    let seenFrames = 0;
    const scanFrames = () => {
      try {
        const n = lenGet ? apply(lenGet, w, []) : 0;
        if (n === seenFrames) return;
        seenFrames = n;
        for (let i = 0; i < n && i < 100; i++) { try { install(w[i]); } catch (e) {} }
      } catch (e) {}
    };
    const after = (proto, names) => {
      for (const name of names) {
        try {
          const orig = proto[name];
          if (typeof orig !== "function") continue;
          defineProperty(proto, name, { configurable: true, writable: true, enumerable: true,
            value: function () { const r = apply(orig, this, arguments); scanFrames(); return r; } });
        } catch (e) {}
      }
    };
    const afterSetter = (proto, names) => {
      for (const name of names) {
        try {
          const d = getDesc(proto, name);
          if (!d || !d.set) continue;
          const set = d.set;
          defineProperty(proto, name, { configurable: true, enumerable: d.enumerable, get: d.get,
            set: function (v) { apply(set, this, [v]); scanFrames(); } });
        } catch (e) {}
      }
    };
    try {
      after(w.Node.prototype, ["appendChild", "insertBefore", "replaceChild"]);
      after(w.Element.prototype, ["append", "prepend", "after", "before", "replaceWith", "replaceChildren", "insertAdjacentElement", "insertAdjacentHTML", "setHTMLUnsafe"]);
      after(w.Document.prototype, ["append", "prepend", "replaceChildren"]);
      after(w.DocumentFragment.prototype, ["append", "prepend", "replaceChildren"]);
      after(w.Range.prototype, ["insertNode"]);
      afterSetter(w.Element.prototype, ["innerHTML", "outerHTML"]);
      afterSetter(w.ShadowRoot.prototype, ["innerHTML"]);
    } catch (e) {}
    try {
      const p = w.HTMLIFrameElement.prototype;
      for (const prop of ["contentWindow", "contentDocument"]) {
        const d = getDesc(p, prop);
        if (!d || !d.get) continue;
        const get = d.get;
        defineProperty(p, prop, { configurable: true, enumerable: true, get() {
          const c = apply(get, this, []);
          if (c) install(prop === "contentWindow" ? c : c.defaultView);
          return c;
        } });
      }
    } catch (e) {}
  };
  install(self);
})();`;
}
