// @ts-check
// The script every document of a scan runs before the creative's own code (Page.addScriptToEvaluateOnNewDocument,
// page-signals.ts), reporting to Node through a CDP binding (Runtime.addBinding) whose name is random per scan.
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

/** A window and its globals: the top document's, or a frame's reached from it. @typedef {Window & typeof globalThis} Realm */
/** What the realm sends (validated again in Node). @typedef {import("../instrument.ts").PageSignal} PageSignal */
/** A pending timeout, by id. @typedef {{ due: number, period: number, chain: boolean, afterClick: boolean }} TimeoutRecord */

/**
 * @param {string} binding The CDP binding's name (random per scan).
 * @param {string} pingEvent The event that asks every realm for a report now (the render watch's probe fires it).
 * @param {number} horizonMs Timers due later than this (from when they are set) cannot move pixels within any render
 *   window: they are not tracked.
 */
function instrument(binding, pingEvent, horizonMs) {
  // Strict mode: `arguments` must not alias the parameters, since the wrappers replace arguments[0].
  "use strict";
  const apply = Reflect.apply, stringify = JSON.stringify, defineProperty = Object.defineProperty;
  const getDesc = Object.getOwnPropertyDescriptor;
  /** Properties the DOM types do not declare (the binding, our mark): the object itself, seen as a record. */
  const props = /** @type {(o: unknown) => Record<string, unknown>} */ ((o) => /** @type {Record<string, unknown>} */ (o));
  /** @type {unknown} */
  let bind;
  try { bind = props(self)[binding]; delete props(self)[binding]; } catch (e) {}
  if (typeof bind !== "function") return;
  const channel = bind;
  /** @param {PageSignal} msg */
  const send = (msg) => { try { apply(channel, undefined, [apply(stringify, JSON, [msg])]); } catch (e) {} };
  /** @type {Record<string, boolean>} */
  const once = Object.create(null);
  /** @param {string} key @param {PageSignal} msg */
  const sendOnce = (key, msg) => { if (once[key]) return; once[key] = true; send(msg); };
  // A realm is instrumented once, whoever gets there first (its own new-document script, or a parent that reached
  // into it): our setTimeout wrapper carries a mark named after the per-scan secret. No marker on the window itself,
  // where the creative would look first; the mark reveals nothing it could use (the binding is already gone).
  const MARK = binding + "_w";
  /** @param {Realm} w */
  const install = (w) => {
    try {
      if (props(w.setTimeout)[MARK]) return;
      try { delete props(w)[binding]; } catch (e) {}
    } catch (e) { return; }
    const realm = Math.random().toString(36).slice(2, 12);
    const perf = w.performance, pnow = perf.now, timeOrigin = perf.timeOrigin;
    /** @returns {number} */
    const now = () => timeOrigin + apply(pnow, perf, []);
    const st = w.setTimeout, ct = w.clearTimeout, si = w.setInterval, ci = w.clearInterval, raf = w.requestAnimationFrame;
    // id -> record; null prototype: nothing of the creative's can intercept it.
    /** @type {Record<string, TimeoutRecord>} */
    const timeouts = Object.create(null);
    /** @type {Record<string, number>} id -> period */
    const intervals = Object.create(null);
    /** @type {Record<string, boolean>} requestIdleCallback ids pending */
    const idles = Object.create(null);
    let inTimer = 0, fires = 0, lastFire = 0, lastRaf = 0, lastPointer = 0, queued = false, dirty = false, ticks = 0;
    // A frame loop the last click started (a tween its handler began, whose end may open the exit): when it asked for
    // its first frame (0 = none), and the last frame asked for before that click.
    let clickLoop = 0, rafAtPointer = 0;
    // Listeners and hooks through which the creative's own code can stop (or start) motion without a timer: an
    // `infinite` animation stopped on its 3rd animationiteration, a looping video paused on timeupdate, a Web
    // Animation's finish promise. While any exist, a running infinite animation is no proof of endless motion.
    let stoppers = 0;
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
      let idle = 0;
      for (const id in idles) idle++;
      const tl = timelines(t);
      send({ t: "motion", realm, pending, chainPeriod, intervals: nIntervals, intervalPeriod, raf: lastRaf, afterClick, rafClick: clickLoop, at: t, fires, lastFire,
        stoppers, tlEnd: tl.end, tlDone: tl.done, tlEndless: tl.endless, idle });
    };
    /**
     * What the creative's animation library says about its own timeline (GSAP 3 and 2, Adobe Animate/CreateJS), read
     * from the creative's world — so it can only extend the watch (a tween still to come after a long hold: `end`)
     * or bring it back to the ordinary hold window (`done`), never end it sooner than that. Bounded walks; any throw
     * (a creative's getter, a library version we do not know) means "no word".
     * @param {number} t
     * @returns {{ end: number, done: number, endless: number }}
     */
    const timelines = (t) => {
      let end = 0, endless = 0, known = 0, busy = 0;
      /** @param {unknown} o @param {string} k @returns {any} */
      const get = (o, k) => (o && (typeof o === "object" || typeof o === "function") ? props(o)[k] : undefined);
      /** @param {unknown} o @param {string} k @returns {any} */
      const call = (o, k) => { const f = get(o, k); return typeof f === "function" ? apply(f, o, []) : undefined; };
      try {
        // GSAP: the root timeline holds every tween, timeline and delayed call not yet completed (it drops finished ones).
        const g = get(w, "gsap");
        const core = get(get(get(get(w, "com"), "greensock"), "core"), "Animation");
        const root = get(g, "globalTimeline") || get(core, "_rootTimeline");
        if (root) {
          known++;
          const time = Number(call(root, "time") ?? get(root, "_time")) || 0;
          const scale = Math.abs(Number(call(root, "timeScale")) || 1);
          let last = time, n = 0;
          for (let c = get(root, "_first"); c && n < 500; c = get(c, "_next"), n++) {
            if (call(c, "paused") === true) continue;
            const total = Number(call(c, "totalDuration")) || 0;
            if (call(c, "repeat") === -1 || total > 1e8) { endless = 1; continue; }
            const start = Number(call(c, "startTime")) || 0;
            const ts = Math.abs(Number(call(c, "timeScale")) || 1);
            last = Math.max(last, start + total / ts);
          }
          if (last > time) { end = Math.max(end, t + ((last - time) * 1000) / scale); busy++; }
        }
      } catch (e) {}
      try {
        // Adobe Animate (CreateJS): the exported root clip and its children, and Tween.js's active tweens.
        const cj = get(w, "createjs"), rootClip = get(w, "exportRoot");
        if (cj && rootClip && typeof rootClip === "object") {
          known++;
          let playing = false, n = 0;
          const stack = [rootClip];
          while (stack.length > 0 && n < 500 && !playing) {
            const mc = stack.pop();
            n++;
            const paused = get(mc, "paused");
            if (get(mc, "timeline") && typeof paused === "boolean" && (get(mc, "mode") ?? "independent") === "independent") {
              const total = Number(get(mc, "totalFrames") ?? get(get(mc, "timeline"), "duration")) || 1;
              const loop = get(mc, "loop");
              const loops = loop === true || (typeof loop === "number" && loop !== 0);
              if (!paused && total > 1 && (loops || Number(get(mc, "currentFrame")) < total - 1)) playing = true;
            }
            const kids = get(mc, "children");
            if (kids && typeof kids.length === "number") for (let i = 0; i < kids.length && i < 200; i++) stack.push(kids[i]);
          }
          const tw = get(cj, "Tween");
          if (tw && ((get(tw, "_tweens") && get(tw, "_tweens").length > 0) || get(tw, "_tweenHead"))) playing = true;
          if (playing) busy++;
        }
      } catch (e) {}
      return { end: Math.round(end), done: known > 0 && busy === 0 && endless === 0 ? 1 : 0, endless };
    };
    const changed = () => {
      dirty = true;
      if (queued) return;
      queued = true;
      apply(st, w, [() => { queued = false; dirty = false; report(); }, 50]);
    };
    try {
      /** @param {Event} e */
      const onPointer = (e) => { if (e.isTrusted) { lastPointer = now(); clickLoop = 0; rafAtPointer = lastRaf; } };
      for (const type of ["pointerdown", "mousedown", "click", "touchstart"]) w.addEventListener(type, onPointer, true);
    } catch (e) {}
    try {
      const proto = w.Document.prototype;
      for (const name of /** @type {const} */ (["write", "writeln"])) {
        const orig = proto[name];
        defineProperty(proto, name, { configurable: true, writable: true, enumerable: true,
          /** @this {unknown} */
          value: function () { sendOnce("dw", { t: "dw" }); const r = apply(orig, this, arguments); scanFrames(); return r; } });
      }
    } catch (e) {}
    try {
      // paintTime: the rendering update that painted, on the main thread's clock like the creative's own timers.
      // startTime is when the frame was presented, which a busy GPU process delays by up to seconds on a loaded
      // machine: counted from there, a 6 s slideshow measured 4.1 s in CI. The getters are the natives, taken
      // before the creative runs: a creative that redefines them must not move its own time to visual start.
      /** @param {object} proto @param {string} name */
      const getter = (proto, name) => { try { const d = getDesc(proto, name); return d && d.get; } catch (e) {} };
      const entryName = getter(w.PerformanceEntry.prototype, "name"), startTime = getter(w.PerformanceEntry.prototype, "startTime");
      const paintTime = w.PerformancePaintTiming && getter(w.PerformancePaintTiming.prototype, "paintTime");
      const getEntries = w.PerformanceObserverEntryList.prototype.getEntries;
      new w.PerformanceObserver((list) => {
        const entries = apply(getEntries, list, []);
        for (let i = 0; i < entries.length && i < 10; i++) {
          const e = entries[i];
          const at = (paintTime && apply(paintTime, e, [])) || apply(/** @type {Function} */ (startTime), e, []);
          send({ t: "paint", name: String(apply(/** @type {Function} */ (entryName), e, [])), at: timeOrigin + at });
        }
      }).observe({ type: "paint", buffered: true });
    } catch (e) {}
    try {
      w.document.addEventListener("playing", () => sendOnce("video", { t: "video" }), true);
    } catch (e) {}
    try {
      /** @param {unknown} fn @param {unknown} delay @this {unknown} */
      const setTimeoutWrapper = function (fn, delay) {
        const args = arguments;
        const d = Math.max(0, Number(delay) || 0);
        /** @type {TimeoutRecord} */
        const rec = { due: now() + d, period: d, chain: inTimer > 0, afterClick: lastPointer > 0 && now() - lastPointer < 5000 && d <= 10000 };
        /** @type {number} */
        let id;
        if (typeof fn === "function") {
          /** @this {unknown} */
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
        if (d <= horizonMs) { timeouts[id] = rec; if (rec.afterClick) report(); else changed(); }
        return id;
      };
      w.setTimeout = /** @type {Realm["setTimeout"]} */ (/** @type {unknown} */ (setTimeoutWrapper));
      defineProperty(w.setTimeout, MARK, { value: true });
      w.clearTimeout = /** @type {Realm["clearTimeout"]} */ (/** @param {number} id */ function (id) { if (timeouts[id]) { delete timeouts[id]; changed(); } return apply(ct, w, arguments); });
      /** @param {unknown} fn @param {unknown} delay */
      const setIntervalWrapper = function (fn, delay) {
        const args = arguments;
        const d = Math.max(4, Number(delay) || 0);
        if (typeof fn === "function") {
          /** @this {unknown} */
          args[0] = function () { fires++; inTimer++; try { return apply(fn, this, arguments); } finally { inTimer--; lastFire = now(); } };
        }
        const id = apply(si, w, args);
        if (d <= horizonMs) { intervals[id] = d; changed(); }
        return id;
      };
      w.setInterval = /** @type {Realm["setInterval"]} */ (/** @type {unknown} */ (setIntervalWrapper));
      w.clearInterval = /** @type {Realm["clearInterval"]} */ (/** @param {number} id */ function (id) { if (intervals[id] !== undefined) { delete intervals[id]; changed(); } return apply(ci, w, arguments); });
      if (raf) w.requestAnimationFrame = function () {
        const t = now();
        lastRaf = t;
        // The first frame asked for after a click, with none asked for in the 100 ms before it: the click started a
        // frame loop. Reported at once, as a click handler's timer is; the reports after it say whether it still runs.
        if (!clickLoop && lastPointer > 0 && t - lastPointer < 5000 && rafAtPointer < lastPointer - 100) { clickLoop = t; report(); }
        return apply(raf, w, arguments);
      };
      // Idle callbacks pending: no page with one is proven calm (see RealmReport.idle); what one runs counts as a
      // timer callback (lastFire).
      const ric = w.requestIdleCallback, cic = w.cancelIdleCallback;
      if (ric && cic) {
        w.requestIdleCallback = /** @type {Realm["requestIdleCallback"]} */ (/** @type {unknown} */ (function (/** @type {unknown} */ fn) {
          const args = arguments;
          /** @type {number} */
          let id;
          if (typeof fn === "function") {
            /** @this {unknown} */
            args[0] = function () { delete idles[id]; try { return apply(fn, this, arguments); } finally { lastFire = now(); changed(); } };
          }
          id = apply(ric, w, args);
          idles[id] = true;
          changed();
          return id;
        }));
        w.cancelIdleCallback = /** @param {number} id */ function (id) { if (idles[id]) { delete idles[id]; changed(); } return apply(cic, w, arguments); };
      }
      // Listeners for the events a creative stops or chains motion on (see `stoppers`), however registered.
      /** @type {Record<string, boolean>} */
      const STOP = Object.create(null);
      for (const type of ["animationstart", "animationiteration", "animationend", "animationcancel", "transitionrun", "transitionstart",
        "transitionend", "transitioncancel", "ended", "timeupdate", "finish", "cancel", "beginEvent", "endEvent", "repeatEvent"]) STOP[type] = true;
      const add = w.EventTarget.prototype.addEventListener;
      defineProperty(w.EventTarget.prototype, "addEventListener", { configurable: true, writable: true, enumerable: true,
        /** @this {unknown} @param {unknown} type */
        value: function (type) { if (STOP[String(type)] === true) stoppers++; return apply(add, this, arguments); } });
      /** @param {object | undefined} proto @param {string[]} names */
      const onSetters = (proto, names) => {
        for (const name of names) {
          try {
            const d = proto && getDesc(proto, name);
            if (!d || !d.set) continue;
            const set = d.set;
            defineProperty(proto, name, { configurable: true, enumerable: d.enumerable, get: d.get,
              /** @this {unknown} @param {unknown} v */
              set: function (v) { if (typeof v === "function") stoppers++; apply(set, this, [v]); } });
          } catch (e) {}
        }
      };
      const onNames = ["onanimationstart", "onanimationiteration", "onanimationend", "onanimationcancel", "ontransitionrun",
        "ontransitionstart", "ontransitionend", "ontransitioncancel", "onended", "ontimeupdate"];
      for (const proto of [w.HTMLElement && w.HTMLElement.prototype, w.SVGElement && w.SVGElement.prototype, w.Document.prototype, w.Window && w.Window.prototype, w]) onSetters(proto, onNames);
      // A Web Animation's end reached through its promise or handler: `el.animate(...).finished.then(stop)`.
      if (w.Animation) {
        onSetters(w.Animation.prototype, ["onfinish", "oncancel"]);
        const fin = getDesc(w.Animation.prototype, "finished");
        if (fin && fin.get) {
          const getFinished = fin.get;
          defineProperty(w.Animation.prototype, "finished", { configurable: true, enumerable: fin.enumerable,
            /** @this {unknown} */
            get: function () { stoppers++; return apply(getFinished, this, []); } });
        }
      }
      // Our own heartbeat (untracked native timer): keeps the rAF time fresh for Node, which reads "a rAF loop is
      // running" from it, and is the fresh word a calm verdict waits for — every 100 ms while a render watch is
      // typically deciding (the first 10 s), then every 250 ms. Bounded so that an abandoned page stops talking.
      const beat = () => { if (!dirty) report(); if (++ticks < 460) apply(st, w, [beat, ticks < 100 ? 100 : 250]); };
      apply(st, w, [beat, 0]);
      // A report on demand: the render watch's isolated-world probe dispatches this (per-scan secret) event on the
      // window first, so the calm verdict need not wait for the next heartbeat. Anyone firing it gets only a report.
      apply(w.addEventListener, w, [pingEvent, () => report(), true]);
    } catch (e) {}
    // Frames: instrument a child realm as soon as the creative can reach it.
    /** @type {Function | undefined} */
    let lenGet;
    try { const d = getDesc(w, "length"); lenGet = d && d.get; } catch (e) {}
    let seenFrames = 0;
    const scanFrames = () => {
      try {
        const n = lenGet ? apply(lenGet, w, []) : 0;
        if (n === seenFrames) return;
        seenFrames = n;
        for (let i = 0; i < n && i < 100; i++) { try { install(/** @type {Realm} */ (w[i])); } catch (e) {} }
      } catch (e) {}
    };
    /** @param {object} proto @param {string[]} names */
    const after = (proto, names) => {
      for (const name of names) {
        try {
          const orig = props(proto)[name];
          if (typeof orig !== "function") continue;
          defineProperty(proto, name, { configurable: true, writable: true, enumerable: true,
            /** @this {unknown} */
            value: function () { const r = apply(orig, this, arguments); scanFrames(); return r; } });
        } catch (e) {}
      }
    };
    /** @param {object} proto @param {string[]} names */
    const afterSetter = (proto, names) => {
      for (const name of names) {
        try {
          const d = getDesc(proto, name);
          if (!d || !d.set) continue;
          const set = d.set;
          defineProperty(proto, name, { configurable: true, enumerable: d.enumerable, get: d.get,
            /** @this {unknown} @param {unknown} v */
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
        defineProperty(p, prop, { configurable: true, enumerable: true,
          /** @this {HTMLIFrameElement} */
          get() {
            const c = apply(get, this, []);
            if (c) install(prop === "contentWindow" ? c : c.defaultView);
            return c;
          } });
      }
    } catch (e) {}
  };
  install(self);
}
