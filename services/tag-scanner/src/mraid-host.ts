/**
 * The MRAID container: what an in-app SDK (Google Mobile Ads, AppLovin, the IAB reference containers) gives a
 * creative that loads `mraid.js`. MRAID creatives reference the file by name only (`<script src="mraid.js">`) and the
 * SDK answers that request from its own code, so without a container they throw "mraid is not defined", wait forever
 * for `ready` and paint nothing — a scan would report an in-app banner that works in every app as broken. We answer
 * any request whose file name is `mraid.js` with this script (served by interception, never fetched, left out of the
 * creative's network and weight as the SDK's file is), as an inline placement in the default state:
 *
 *  - the state machine of MRAID 3.0 (loading → default at `ready`, expand/resize/close, hidden), with `stateChange`,
 *    `ready`, `viewableChange`, `exposureChange` and `sizeChange` fired the way SDKs fire them;
 *  - `open(url)` and `playVideo(url)` open a new window, as the SDK opens the in-app browser: the click-through step
 *    sees them like any `window.open`;
 *  - position and sizes are the scan's viewport (the placement is the page); features the scan cannot provide (sms,
 *    tel, calendar, storePicture, location) are reported unsupported and their calls fire `error`, as the spec asks.
 *
 * It runs in the creative's own world like the SDK's script, so its timers are the creative's and the render watch
 * sees them. Nothing in it reaches the scanner: it is a plain script with no access to the report channel.
 */
export const MRAID_VERSION = "3.0";

/** Whether a request is for the container's script: any URL whose last path segment is `mraid.js`. */
export function isMraidScript(url: string): boolean {
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") return false;
    return /(^|\/)mraid\.js$/i.test(u.pathname);
  } catch {
    return false;
  }
}

/**
 * MRAID 3.0 asks the container to define MRAID_ENV before the ad's markup runs, so that an ad (or a verification
 * script) can tell it is in an MRAID webview before it loads mraid.js; SDKs inject it at document start. The scan
 * does the same for creatives that load mraid.js (`SyntheticSite.inApp`); the container sets it too.
 */
const MRAID_ENV = `{ version: ${JSON.stringify(MRAID_VERSION)}, sdk: "Creative Validation API", sdkVersion: "1", limitAdTracking: true, coppa: false }`;
export const MRAID_ENV_JS = `(function () { try { if (!window.MRAID_ENV) window.MRAID_ENV = ${MRAID_ENV}; } catch (e) {} })();`;

/**
 * Whether a creative's markup or script is written for an MRAID container: it loads `mraid.js`. Merely mentioning
 * MRAID is not enough: universal web tags test `window.mraid` to pick their path, and must keep the web one.
 */
export function mentionsMraid(text: string | Uint8Array): boolean {
  if (typeof text === "string") return /mraid\.js/i.test(text);
  // A bundle's scripts can be megabytes: searched as bytes, without decoding.
  const b = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  return b.includes("mraid.js") || b.includes("MRAID.js") || b.includes("Mraid.js");
}

export const MRAID_HOST_JS = `(function () {
  "use strict";
  if (window.mraid && window.mraid.__container) return;
  var VERSION = ${JSON.stringify(MRAID_VERSION)};
  var state = "loading", ready = false;
  var listeners = Object.create(null);
  var expandProps = { width: -1, height: -1, useCustomClose: false, isModal: true };
  var resizeProps = null;
  var orientationProps = { allowOrientationChange: true, forceOrientation: "none" };
  var EVENTS = ["ready", "error", "stateChange", "viewableChange", "exposureChange", "sizeChange", "audioVolumeChange"];
  var SUPPORTED = { inlineVideo: true, sms: false, tel: false, calendar: false, storePicture: false, vpaid: false, location: false };

  function later(fn) { setTimeout(fn, 0); }
  function fire(event) {
    var args = Array.prototype.slice.call(arguments, 1);
    var list = (listeners[event] || []).slice();
    for (var i = 0; i < list.length; i++) {
      try { list[i].apply(window, args); } catch (e) { setTimeout(function () { throw e; }, 0); }
    }
  }
  function error(message, action) { fire("error", message, action); }
  function viewport() { return { width: window.innerWidth, height: window.innerHeight }; }
  function setState(next) {
    if (state === next) return;
    state = next;
    fire("stateChange", next);
  }
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
    addEventListener: function (event, listener) {
      if (EVENTS.indexOf(event) < 0 || typeof listener !== "function") return error("unknown event or listener: " + event, "addEventListener");
      (listeners[event] = listeners[event] || []).push(listener);
    },
    removeEventListener: function (event, listener) {
      var list = listeners[event];
      if (!list) return error("no listener for " + event, "removeEventListener");
      if (listener === undefined) { delete listeners[event]; return; }
      var i = list.indexOf(listener);
      if (i < 0) return error("listener not registered for " + event, "removeEventListener");
      list.splice(i, 1);
    },
    open: function (url) { openWindow(url, "open"); },
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
    useCustomClose: function (v) { expandProps.useCustomClose = !!v; },
    getExpandProperties: function () {
      var vp = viewport();
      return { width: expandProps.width < 0 ? vp.width : expandProps.width, height: expandProps.height < 0 ? vp.height : expandProps.height,
        useCustomClose: expandProps.useCustomClose, isModal: true };
    },
    setExpandProperties: function (p) {
      if (!p || typeof p !== "object") return error("expand properties must be an object", "setExpandProperties");
      if (typeof p.width === "number") expandProps.width = p.width;
      if (typeof p.height === "number") expandProps.height = p.height;
      if (typeof p.useCustomClose === "boolean") expandProps.useCustomClose = p.useCustomClose;
    },
    getResizeProperties: function () { return resizeProps ? Object.assign({}, resizeProps) : undefined; },
    setResizeProperties: function (p) {
      if (!p || typeof p.width !== "number" || typeof p.height !== "number" || typeof p.offsetX !== "number" || typeof p.offsetY !== "number")
        return error("width, height, offsetX and offsetY are required", "setResizeProperties");
      if (p.width < 50 || p.height < 50) return error("a resized ad must be at least 50x50", "setResizeProperties");
      resizeProps = { width: p.width, height: p.height, offsetX: p.offsetX, offsetY: p.offsetY,
        customClosePosition: p.customClosePosition || "top-right", allowOffscreen: p.allowOffscreen !== false };
    },
    getOrientationProperties: function () { return Object.assign({}, orientationProps); },
    setOrientationProperties: function (p) { if (p && typeof p === "object") Object.assign(orientationProps, p); },
    getCurrentAppOrientation: function () {
      return { orientation: window.innerWidth > window.innerHeight ? "landscape" : "portrait", locked: false };
    },
    getCurrentPosition: function () { var vp = viewport(); return { x: 0, y: 0, width: vp.width, height: vp.height }; },
    getDefaultPosition: function () { var vp = viewport(); return { x: 0, y: 0, width: vp.width, height: vp.height }; },
    getMaxSize: function () { return viewport(); },
    getScreenSize: function () { return { width: screen.width, height: screen.height }; },
    getLocation: function () { return -1; },
    supports: function (feature) { return SUPPORTED[feature] === true; },
    storePicture: function () { error("storePicture is not supported", "storePicture"); },
    createCalendarEvent: function () { error("createCalendarEvent is not supported", "createCalendarEvent"); },
  };
  window.mraid = mraid;
  if (!window.MRAID_ENV) window.MRAID_ENV = ${MRAID_ENV};

  // As SDKs do: ready once the page has loaded its markup, after the creative's own scripts have had the chance to
  // register for it; state first, then ready, viewability and exposure.
  function becomeReady() {
    later(function () {
      if (ready) return;
      ready = true;
      setState("default");
      fire("ready");
      fire("viewableChange", true);
      var vp = viewport();
      fire("exposureChange", 100, { x: 0, y: 0, width: vp.width, height: vp.height }, null);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", becomeReady);
  else becomeReady();
})();
`;
