// @ts-check
// The MRAID 3.0 container (mraid-host.ts): served as `mraid.js` to creatives that load it, as an in-app SDK answers
// that request from its own code. It runs in the creative's own world like the SDK's script, so its timers are the
// creative's and the render watch sees them. Nothing in it reaches the scanner: it has no access to the report channel.

/** @typedef {import("../../mraid-host.ts").MraidEnv} MraidEnv */
/** The page's window with what the container adds. @typedef {Window & { mraid?: { __container?: boolean }, MRAID_ENV?: MraidEnv }} MraidWindow */
/** What mraid.setResizeProperties takes (MRAID 3.0 §"resizeProperties"). @typedef {{ width: number, height: number, offsetX: number, offsetY: number, customClosePosition?: string, allowOffscreen?: boolean }} ResizeProperties */
/** A listener the creative registered. @typedef {(...args: unknown[]) => void} Listener */

/**
 * @param {string} version The MRAID version the container implements.
 * @param {MraidEnv} env `MRAID_ENV`, as MRAID 3.0 asks the container to define it.
 */
function mraidHost(version, env) {
  "use strict";
  var win = /** @type {MraidWindow} */ (window);
  if (win.mraid && win.mraid.__container) return;
  var VERSION = version;
  var state = "loading", ready = false;
  /** @type {Record<string, Listener[]>} */
  var listeners = Object.create(null);
  var expandProps = { width: -1, height: -1, useCustomClose: false, isModal: true };
  /** @type {Required<ResizeProperties> | null} */
  var resizeProps = null;
  var orientationProps = { allowOrientationChange: true, forceOrientation: "none" };
  var EVENTS = ["ready", "error", "stateChange", "viewableChange", "exposureChange", "sizeChange", "audioVolumeChange"];
  /** @type {Record<string, boolean>} */
  var SUPPORTED = { inlineVideo: true, sms: false, tel: false, calendar: false, storePicture: false, vpaid: false, location: false };

  /** @param {() => void} fn */
  function later(fn) { setTimeout(fn, 0); }
  /** @param {string} event @param {...unknown} args passed on to the listeners */
  function fire(event, ...args) {
    var list = (listeners[event] || []).slice();
    for (var i = 0; i < list.length; i++) {
      try { list[i].apply(window, args); } catch (e) { setTimeout(function () { throw e; }, 0); }
    }
  }
  /** @param {string} message @param {string} action */
  function error(message, action) { fire("error", message, action); }
  function viewport() { return { width: window.innerWidth, height: window.innerHeight }; }
  /** @param {string} next */
  function setState(next) {
    if (state === next) return;
    state = next;
    fire("stateChange", next);
  }
  /** @param {unknown} url @param {string} action */
  function openWindow(url, action) {
    if (typeof url !== "string" || !url) return error("a URL is required", action);
    window.open(url, "_blank");
  }

  var mraid = {
    __container: true,
    getVersion: function () { return VERSION; },
    getState: function () { return state; },
    getPlacementType: function () { return "inline"; },
    isViewable: function () { return ready && state !== "hidden"; },
    /** @param {string} event @param {unknown} listener */
    addEventListener: function (event, listener) {
      if (EVENTS.indexOf(event) < 0 || typeof listener !== "function") return error("unknown event or listener: " + event, "addEventListener");
      (listeners[event] = listeners[event] || []).push(/** @type {Listener} */ (listener));
    },
    /** @param {string} event @param {Listener} [listener] */
    removeEventListener: function (event, listener) {
      var list = listeners[event];
      if (!list) return error("no listener for " + event, "removeEventListener");
      if (listener === undefined) { delete listeners[event]; return; }
      var i = list.indexOf(listener);
      if (i < 0) return error("listener not registered for " + event, "removeEventListener");
      list.splice(i, 1);
    },
    /** @param {string} url */
    open: function (url) { openWindow(url, "open"); },
    /** @param {string} url */
    playVideo: function (url) { openWindow(url, "playVideo"); },
    expand: function () {
      if (state !== "default" && state !== "resized") return error("expand is allowed in the default or resized state only", "expand");
      setState("expanded");
      var vp = viewport();
      fire("sizeChange", vp.width, vp.height);
    },
    resize: function () {
      if (!resizeProps) return error("setResizeProperties must be called before resize", "resize");
      if (state !== "default" && state !== "resized") return error("resize is allowed in the default or resized state only", "resize");
      setState("resized");
      fire("sizeChange", resizeProps.width, resizeProps.height);
    },
    close: function () {
      if (state === "expanded" || state === "resized") { setState("default"); var vp = viewport(); fire("sizeChange", vp.width, vp.height); }
      else if (state === "default") { setState("hidden"); fire("viewableChange", false); }
    },
    unload: function () { setState("hidden"); },
    /** @param {boolean} v */
    useCustomClose: function (v) { expandProps.useCustomClose = !!v; },
    getExpandProperties: function () {
      var vp = viewport();
      return { width: expandProps.width < 0 ? vp.width : expandProps.width, height: expandProps.height < 0 ? vp.height : expandProps.height,
        useCustomClose: expandProps.useCustomClose, isModal: true };
    },
    /** @param {{ width?: number, height?: number, useCustomClose?: boolean }} p */
    setExpandProperties: function (p) {
      if (!p || typeof p !== "object") return error("expand properties must be an object", "setExpandProperties");
      if (typeof p.width === "number") expandProps.width = p.width;
      if (typeof p.height === "number") expandProps.height = p.height;
      if (typeof p.useCustomClose === "boolean") expandProps.useCustomClose = p.useCustomClose;
    },
    getResizeProperties: function () { return resizeProps ? Object.assign({}, resizeProps) : undefined; },
    /** @param {ResizeProperties} p */
    setResizeProperties: function (p) {
      if (!p || typeof p.width !== "number" || typeof p.height !== "number" || typeof p.offsetX !== "number" || typeof p.offsetY !== "number")
        return error("width, height, offsetX and offsetY are required", "setResizeProperties");
      if (p.width < 50 || p.height < 50) return error("a resized ad must be at least 50x50", "setResizeProperties");
      resizeProps = { width: p.width, height: p.height, offsetX: p.offsetX, offsetY: p.offsetY,
        customClosePosition: p.customClosePosition || "top-right", allowOffscreen: p.allowOffscreen !== false };
    },
    getOrientationProperties: function () { return Object.assign({}, orientationProps); },
    /** @param {{ allowOrientationChange?: boolean, forceOrientation?: string }} p */
    setOrientationProperties: function (p) { if (p && typeof p === "object") Object.assign(orientationProps, p); },
    getCurrentAppOrientation: function () {
      return { orientation: window.innerWidth > window.innerHeight ? "landscape" : "portrait", locked: false };
    },
    getCurrentPosition: function () { var vp = viewport(); return { x: 0, y: 0, width: vp.width, height: vp.height }; },
    getDefaultPosition: function () { var vp = viewport(); return { x: 0, y: 0, width: vp.width, height: vp.height }; },
    getMaxSize: function () { return viewport(); },
    getScreenSize: function () { return { width: screen.width, height: screen.height }; },
    getLocation: function () { return -1; },
    /** @param {string} feature */
    supports: function (feature) { return SUPPORTED[feature] === true; },
    storePicture: function () { error("storePicture is not supported", "storePicture"); },
    createCalendarEvent: function () { error("createCalendarEvent is not supported", "createCalendarEvent"); },
  };
  win.mraid = mraid;
  if (!win.MRAID_ENV) win.MRAID_ENV = env;

  // As SDKs do: ready once the page has loaded its markup, after the creative's own scripts have had the chance to
  // register for it; state first, then ready, viewability and exposure.
  function fireReady() {
    if (ready) return;
    ready = true;
    setState("default");
    fire("ready");
    fire("viewableChange", true);
    var vp = viewport();
    fire("exposureChange", 100, { x: 0, y: 0, width: vp.width, height: vp.height }, null);
  }
  function becomeReady() { later(fireReady); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", becomeReady);
  else becomeReady();
  // And at the latest when the window loads, before the creative's own load listeners: the document turns
  // "complete" in the same task, just before load is fired (a capturing load listener would not do: at the window,
  // load listeners run in the order they were added). A creative that waits for load and finds the state still
  // loading registers for ready and stateChange at once and builds its markup on ready (the IAB MRAID 3.0 compliance
  // ads do): a stateChange reaching it before ready would find no markup. Which comes first — the timer above or
  // load — is a race on a loaded machine.
  if (document.readyState !== "complete") {
    document.addEventListener("readystatechange", function () { if (document.readyState === "complete") fireReady(); });
  }
}
