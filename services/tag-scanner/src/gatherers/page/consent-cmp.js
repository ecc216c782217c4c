// @ts-check
// The consent runs' CMP (privacy/consent-run.ts): what a publisher page with a conformant CMP gives an ad. Runs in
// every document before its own code (Page.addScriptToEvaluateOnNewDocument); the CMP itself lives in the top
// document only, as a publisher's does:
//  - __tcfapi from the IAB Tech Lab's @iabtechlabtcf/cmpapi answering the state's TC string (TCF v2.2), __gpp from
//    @iabgpp/cmpapi answering the GPP string, a small __uspapi (US Privacy 1.0: getUSPData, ping);
//  - the locator frames (__tcfapiLocator, __gppLocator, __uspapiLocator) and the postMessage protocol of each API,
//    which the libraries leave to the CMP: a creative in a cross-origin frame finds the CMP that way;
//  - navigator.globalPrivacyControl = true when the state sends GPC (every document this script runs in).
// Every call of the three APIs — direct, or by postMessage from another frame — is reported to Node through a CDP
// binding whose name is random per run, captured and deleted from the global object before the creative runs. A
// message also carries a per-run token the creative never sees (it cannot read this script's arguments), so a
// creative that found the binding in a realm we did not reach still cannot add calls it did not make.

/** @typedef {{ tcString: string | null, gpp: { gppString: string, sids: number[] } | null, uspString: string | null, gpc: boolean, cmpId: number }} CmpConfig */

/**
 * @param {string} binding The CDP binding's name (random per run).
 * @param {string} token Sent with every report; Node drops messages without it.
 * @param {CmpConfig} cfg What the CMP answers.
 * @param {() => { TcfCmpApi: any, GppCmpApi: any }} libs The IAB libraries (cmp-libs.js), built only in the top frame.
 */
function consentCmp(binding, token, cfg, libs) {
  "use strict";
  const apply = Reflect.apply, stringify = JSON.stringify, parse = JSON.parse, defineProperty = Object.defineProperty;
  const w = /** @type {Record<string, any>} */ (/** @type {unknown} */ (self));
  /** @type {unknown} */
  let bind;
  try { bind = w[binding]; delete w[binding]; } catch (e) {}
  if (cfg.gpc) {
    try { defineProperty(Navigator.prototype, "globalPrivacyControl", { get() { return true; }, configurable: true, enumerable: true }); } catch (e) {}
  }
  if (typeof bind !== "function" || self !== self.top) return;
  const channel = bind;
  /** @param {string} api @param {unknown} command @param {boolean} post */
  const report = (api, command, post) => {
    try { apply(channel, undefined, [apply(stringify, JSON, [{ t: token, api, command: typeof command === "string" ? command.slice(0, 64) : "", post }])]); } catch (e) {}
  };

  /** @type {Record<string, Function>} */
  const originals = Object.create(null);
  const { TcfCmpApi, GppCmpApi } = cfg.tcString !== null || cfg.gpp ? libs() : { TcfCmpApi: null, GppCmpApi: null };
  if (cfg.tcString !== null) {
    const api = new TcfCmpApi(cfg.cmpId, 1, true);
    api.update(cfg.tcString, false);
    originals.__tcfapi = w.__tcfapi;
  }
  if (cfg.gpp) {
    const api = new GppCmpApi(cfg.cmpId, 1);
    api.setSupportedAPIs(["7:usnat"]);
    api.setGppString(cfg.gpp.gppString);
    api.setApplicableSections(cfg.gpp.sids);
    api.setSignalStatus("ready");
    api.setCmpStatus("loaded");
    api.setCmpDisplayStatus("hidden");
    originals.__gpp = w.__gpp;
  }
  if (cfg.uspString !== null) {
    const usp = cfg.uspString;
    /** @param {string} command @param {number} _version @param {(v: unknown, ok: boolean) => void} cb */
    originals.__uspapi = (command, _version, cb) => {
      if (typeof cb !== "function") return;
      if (command === "getUSPData") cb({ version: 1, uspString: usp }, true);
      else if (command === "ping") cb({ cmpLoaded: true, mode: ["USP"] }, true);
      else cb(null, false);
    };
  }
  // Direct calls: the global is a wrapper that reports, then calls the library.
  for (const api of Object.keys(originals)) {
    const fn = originals[api];
    /** @param {unknown[]} args */
    const wrapper = function (...args) { report(api, args[0], false); return apply(fn, undefined, args); };
    w[api] = wrapper;
  }
  // postMessage calls (from frames that cannot reach the top's functions): each API's <api>Call / <api>Return.
  self.addEventListener("message", (event) => {
    /** @type {any} */
    let data = event.data;
    const asString = typeof data === "string";
    if (asString) { try { data = apply(parse, JSON, [data]); } catch (e) { return; } }
    if (!data || typeof data !== "object") return;
    for (const api of Object.keys(originals)) {
      const call = data[`${api}Call`];
      if (!call || typeof call !== "object") continue;
      report(api, call.command, true);
      const source = event.source;
      /** @param {unknown} returnValue @param {boolean} success */
      const reply = (returnValue, success) => {
        // As the IAB stubs answer: plain data (the library's objects may hold what structured clone refuses), a
        // string when the call came as one.
        try {
          const msg = { [`${api}Return`]: { returnValue: apply(parse, JSON, [apply(stringify, JSON, [returnValue ?? null])]), success, callId: call.callId } };
          // The source's own postMessage: a cross-origin WindowProxy is no receiver for Window.prototype.postMessage.
          if (source) /** @type {Window} */ (source).postMessage(asString ? apply(stringify, JSON, [msg]) : msg, "*");
        } catch (e) {}
      };
      try {
        if (api === "__gpp") apply(originals[api], undefined, [call.command, reply, call.parameter, call.version]);
        else apply(originals[api], undefined, [call.command, call.version, reply, call.parameter]);
      } catch (e) {}
    }
  }, true);
  // The locator frames a creative's frame looks for, up its parents, to know a CMP is there.
  const locate = () => {
    const root = document.body || document.documentElement;
    if (!root) return false;
    for (const api of Object.keys(originals)) {
      const f = document.createElement("iframe");
      f.name = `${api}Locator`;
      f.style.display = "none";
      f.setAttribute("aria-hidden", "true");
      root.appendChild(f);
    }
    return true;
  };
  // Before the body exists (a new document), as soon as the parser makes it: a tag's own frames look at once.
  if (!(document.body && locate())) {
    const watch = new MutationObserver(() => { if (document.body && locate()) watch.disconnect(); });
    watch.observe(document, { childList: true, subtree: true });
  }
}
