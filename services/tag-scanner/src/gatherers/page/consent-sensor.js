// @ts-check
// The full (no_cmp) run's consent sensor, page side (privacy/consent-sensor.ts holds the other half: every script the
// page runs, scanned for the consent API names). What only the page can see, because a script may build the name it
// uses at run time:
//  - `navigator.globalPrivacyControl` read (a Proxy above Navigator.prototype — absent in Chromium — or a wrapped
//    getter where it exists): in no_cmp it is undefined, in gpp_us_opt_out true;
//  - `__tcfapiCall`, `__gppCall`, `__uspapiCall`, `__cmpCall` posted to a window (a listener first in capture order);
//  - `tamper`: Navigator.prototype's prototype link changed (setPrototypeOf, __proto__): the sensor taken apart counts
//    as reading every signal.
// Runs in every document before the creative's code (Page.addScriptToEvaluateOnNewDocument) and in every same-origin
// frame the creative reaches through contentWindow/contentDocument (script-written about:blank frames get no
// new-document script). Reports go through a CDP binding with a random name, captured and deleted before the creative
// runs; a creative can only add reads (which makes the scan render more, never less), and Node accepts only the
// names above.

/**
 * @param {string} binding The CDP binding's name (random per scan).
 */
function consentSensor(binding) {
  "use strict";
  const apply = Reflect.apply, rget = Reflect.get, rhas = Reflect.has;
  const getProto = Object.getPrototypeOf, setProto = Object.setPrototypeOf, getDesc = Object.getOwnPropertyDescriptor;
  const defProp = Object.defineProperty, create = Object.create, MakeProxy = Proxy;
  const wsHas = WeakSet.prototype.has, wsAdd = WeakSet.prototype.add;
  const stringify = JSON.stringify, parse = JSON.parse, indexOf = String.prototype.indexOf;
  const w0 = /** @type {Record<string, any>} */ (/** @type {unknown} */ (self));
  /** @type {unknown} */
  let bind;
  try { bind = w0[binding]; delete w0[binding]; } catch (e) {}
  if (typeof bind !== "function") return;
  const channel = bind;
  /** @type {Record<string, boolean>} */
  const sent = create(null);
  /** @param {string} what */
  const send = (what) => {
    if (sent[what]) return;
    sent[what] = true;
    try { apply(channel, undefined, [apply(stringify, JSON, [what])]); } catch (e) {}
  };
  const GPC = "globalPrivacyControl";
  const CALLS = ["__tcfapiCall", "__gppCall", "__uspapiCall", "__cmpCall"];
  // Navigator.prototype of every realm reached, whose prototype link the sensor holds: changing it is tampering.
  const guarded = new WeakSet();
  const realms = new WeakSet();
  /** @param {unknown} o */
  const isGuarded = (o) => { try { return !!o && typeof o === "object" && apply(wsHas, guarded, [o]); } catch (e) { return false; } };

  /** @param {any} w A window of this origin, not yet reached. */
  const install = (w) => {
    try {
      if (apply(wsHas, realms, [w])) return;
      apply(wsAdd, realms, [w]);
    } catch (e) { return; }
    try { delete w[binding]; } catch (e) {}
    const OP = w.Object.prototype;
    const NP = w.Navigator && w.Navigator.prototype;
    if (NP) {
      const d = getDesc(NP, GPC);
      if (d && d.get) {
        const g = d.get;
        defProp(NP, GPC, { get: function () { send(GPC); return apply(g, this, []); }, set: d.set, enumerable: d.enumerable, configurable: true });
      } else if (!d && getProto(NP) === OP) {
        // A null-prototype handler: nothing the creative adds to Object.prototype becomes a trap. A property the
        // navigator has never reaches it: only misses cost a trap.
        /** @type {ProxyHandler<object>} */
        const gpc = create(null);
        gpc.get = (t, k, r) => { if (k === GPC) send(GPC); return rget(t, k, r); };
        gpc.has = (t, k) => { if (k === GPC) send(GPC); return rhas(t, k); };
        setProto(NP, new MakeProxy(OP, gpc));
        apply(wsAdd, guarded, [NP]);
      }
    }
    // postMessage calls of the consent APIs, first in capture order.
    try {
      apply(w.EventTarget.prototype.addEventListener, w, ["message", /** @param {MessageEvent} e */ (e) => {
        try {
          /** @type {any} */
          let d = e.data;
          if (typeof d === "string") {
            if (d.length > 100_000 || apply(indexOf, d, ["Call"]) < 0) return;
            d = apply(parse, JSON, [d]);
          }
          if (!d || typeof d !== "object") return;
          for (const k of CALLS) if (rget(d, k) !== undefined) send(k);
        } catch (err) {}
      }, true]);
    } catch (e) {}
    // Taking the sensor apart: Navigator.prototype's link changed, or the GPC property defined over ours.
    /** @param {any} host @param {string} name @param {(args: unknown[]) => void} check */
    const wrap = (host, name, check) => {
      const d = getDesc(host, name);
      if (!d || typeof d.value !== "function") return;
      const f = d.value;
      /** @this {unknown} @param {unknown[]} args */
      const wrapper = function (...args) { check(args); return apply(f, this, args); };
      defProp(host, name, { value: wrapper, writable: d.writable, enumerable: d.enumerable, configurable: true });
    };
    /** @param {unknown[]} a */
    const onSet = (a) => { if (isGuarded(a[0])) send("tamper"); };
    /** @param {unknown[]} a */
    const onDefine = (a) => { if (isGuarded(a[0]) || a[0] === NP) send("tamper"); };
    wrap(w.Object, "setPrototypeOf", onSet);
    wrap(w.Reflect, "setPrototypeOf", onSet);
    wrap(w.Object, "defineProperty", (a) => { if (a[1] === GPC) onDefine(a); });
    wrap(w.Reflect, "defineProperty", (a) => { if (a[1] === GPC) onDefine(a); });
    const protoDesc = getDesc(OP, "__proto__");
    if (protoDesc && protoDesc.set) {
      const s = protoDesc.set;
      defProp(OP, "__proto__", { get: protoDesc.get, set: function (/** @type {unknown} */ v) { if (isGuarded(this)) send("tamper"); return apply(s, this, [v]); }, enumerable: false, configurable: true });
    }
    // Frames the creative reaches: a same-origin one gets the sensor before the creative's next statement.
    /** @param {any} proto @param {string} name @param {boolean} isDoc */
    const onFrame = (proto, name, isDoc) => {
      const d = proto && getDesc(proto, name);
      if (!d || !d.get) return;
      const g = d.get;
      defProp(proto, name, {
        get: function () {
          const v = apply(g, this, []);
          try { if (v) install(isDoc ? v.defaultView : v); } catch (e) {}
          return v;
        },
        set: d.set, enumerable: d.enumerable, configurable: true,
      });
    };
    for (const el of ["HTMLIFrameElement", "HTMLFrameElement", "HTMLObjectElement"]) {
      const p = w[el] && w[el].prototype;
      onFrame(p, "contentWindow", false);
      onFrame(p, "contentDocument", true);
    }
  };
  install(self);
}
