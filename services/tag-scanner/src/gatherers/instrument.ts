// The script every document of a scan runs before the creative's own code (Page.addScriptToEvaluateOnNewDocument),
// reporting to Node through a CDP binding (Runtime.addBinding) whose name is random per scan.
//
// Chromium does not run new-document scripts in the initial about:blank document of a script-created iframe, which
// is exactly where ad servers document.write their "friendly iframe" creatives. So the script also wraps the
// contentWindow/contentDocument getters of <iframe>: whoever reaches into a child frame instruments it first.
//
// Page-side code is kept as plain JavaScript text: functions serialized with toString() break under transpilers
// that inject helpers (tsx's keepNames adds `__name(...)` calls that do not exist in the page).

export type PageSignal =
  | { t: "dw" }
  | { t: "paint"; name: string; at: number }
  | { t: "video" }
  // Whether anything in this realm can still move pixels: pending timeouts, live intervals, running or pending
  // CSS/Web animations, and the last rAF/timer activity (epoch ms). Lets the scan end as soon as motion is provably
  // over instead of always waiting out the quiet window.
  | { t: "motion"; realm: string; pending: number; intervals: number; anims: number; last: number };

export function instrumentSource(bindingName: string): string {
  return `(() => {
  const BINDING = ${JSON.stringify(bindingName)};
  const reported = new Set();
  const send = (w, msg, onceKey) => {
    if (onceKey) { if (reported.has(onceKey)) return; reported.add(onceKey); }
    try {
      const b = w[BINDING] || self[BINDING];
      if (typeof b === "function") b(JSON.stringify(msg));
    } catch (e) {}
  };
  const install = (w) => {
    try {
      if (Object.prototype.hasOwnProperty.call(w, "__cvaInstrumented")) return;
      Object.defineProperty(w, "__cvaInstrumented", { value: true, enumerable: false });
    } catch (e) { return; }
    const realm = Math.random().toString(36).slice(2);
    try {
      const proto = w.Document.prototype;
      for (const name of ["write", "writeln"]) {
        const orig = proto[name];
        Object.defineProperty(proto, name, { configurable: true, writable: true, enumerable: true,
          value: function (...args) { send(w, { t: "dw" }, "dw:" + realm); return orig.apply(this, args); } });
      }
    } catch (e) {}
    try {
      new w.PerformanceObserver((list) => {
        for (const e of list.getEntries()) send(w, { t: "paint", name: e.name, at: w.performance.timeOrigin + e.startTime });
      }).observe({ type: "paint", buffered: true });
    } catch (e) {}
    try {
      w.document.addEventListener("playing", () => send(w, { t: "video" }, "video:" + realm), true);
    } catch (e) {}
    try {
      const st = w.setTimeout, ct = w.clearTimeout, si = w.setInterval, ci = w.clearInterval, raf = w.requestAnimationFrame;
      const timeouts = new Set(), intervals = new Set();
      let last = 0, queued = false, ticks = 0;
      const report = () => {
        let anims = 0;
        try {
          if (w.document.getAnimations) for (const a of w.document.getAnimations()) if (a.playState === "running" || a.playState === "pending") anims++;
        } catch (e) {}
        send(w, { t: "motion", realm, pending: timeouts.size, intervals: intervals.size, anims, last: last ? w.performance.timeOrigin + last : 0 });
      };
      const soon = () => { if (!queued) { queued = true; st.call(w, () => { queued = false; report(); }, 200); } };
      const active = () => { last = w.performance.now(); soon(); };
      w.setTimeout = function (fn, delay, ...rest) {
        // Timers due after the render window cannot move pixels we measure.
        if (typeof fn !== "function" || Number(delay) > 30000) return st.call(w, fn, delay, ...rest);
        let id;
        id = st.call(w, function (...a) { timeouts.delete(id); active(); return fn.apply(this, a); }, delay, ...rest);
        timeouts.add(id); soon();
        return id;
      };
      w.clearTimeout = function (id) { if (timeouts.delete(id)) soon(); return ct.call(w, id); };
      w.setInterval = function (fn, delay, ...rest) {
        if (typeof fn !== "function") return si.call(w, fn, delay, ...rest);
        const id = si.call(w, function (...a) { active(); return fn.apply(this, a); }, delay, ...rest);
        intervals.add(id); soon();
        return id;
      };
      w.clearInterval = function (id) { if (intervals.delete(id)) soon(); return ci.call(w, id); };
      if (raf) w.requestAnimationFrame = function (cb) { active(); return raf.call(w, cb); };
      // Our own heartbeat (not counted): keeps anims fresh, since CSS animations need no script to run.
      const beat = () => { report(); if (++ticks < 150) st.call(w, beat, 300); };
      st.call(w, beat, 0);
    } catch (e) {}
    try {
      const p = w.HTMLIFrameElement.prototype;
      const cw = Object.getOwnPropertyDescriptor(p, "contentWindow");
      const cd = Object.getOwnPropertyDescriptor(p, "contentDocument");
      if (cw && cw.get) {
        const get = cw.get;
        Object.defineProperty(p, "contentWindow", { configurable: true, enumerable: true,
          get() { const c = get.call(this); if (c) install(c); return c; } });
      }
      if (cd && cd.get) {
        const get = cd.get;
        Object.defineProperty(p, "contentDocument", { configurable: true, enumerable: true,
          get() { const d = get.call(this); if (d && d.defaultView) install(d.defaultView); return d; } });
      }
    } catch (e) {}
  };
  install(self);
})();`;
}
