// @ts-check
// Our SIMID 1.1 player harness (simid/harness-page.ts says what it does and why): runs in the harness page's top
// document, `cfg` its configuration. `window.__cvaSimid` is the promise of what happened.

/** @typedef {import("../harness-page.ts").HarnessConfig} HarnessConfig */
/** @typedef {import("../harness-page.ts").HarnessResult} HarnessResult */

/** @param {HarnessConfig} cfg */
function simidHarness(cfg) {
  const MAX_MESSAGES = 100;
  const MAX_ERRORS = 50;
  /** @type {HarnessResult} */
  const r = {
    sessionCreated: false, sessionMs: -1, initResolved: false, initRejected: false, initMs: -1,
    startResolved: false, startRejected: false, startMs: -1, errors: [], messages: [],
  };
  /** @param {string} m */
  const err = (m) => { if (r.errors.length < MAX_ERRORS) r.errors.push(m.slice(0, 500)); };
  /** @param {number} ms */
  const secs = (ms) => `${Math.round(ms / 100) / 10} s`;
  /** @type {(v: HarnessResult) => void} */
  let done = () => {};
  /** @type {Window & { __cvaSimid?: Promise<HarnessResult> }} */ (window).__cvaSimid = new Promise((res) => { done = res; });

  const frame = document.createElement("iframe");
  // Hidden until startCreative is resolved (§6.1 step 1, 8), but laid out at the declared size so it can render.
  frame.style.cssText = `position:absolute;left:0;top:0;border:0;width:${cfg.width}px;height:${cfg.height}px;visibility:hidden`;
  frame.setAttribute("allow", "autoplay");
  let sessionId = "";
  let nextId = 0;
  let t0 = 0;
  let finished = false;
  const now = () => Math.round(performance.now() - t0);
  /** @type {Map<number, { step: "init" | "start", sent: number }>} */
  const pending = new Map();
  /** @type {number[]} */
  const timers = [];

  function finish() {
    if (finished) return;
    finished = true;
    for (const t of timers) clearTimeout(t);
    done(r);
  }
  /** @param {string} type @param {unknown} args @returns {number} */
  function post(type, args) {
    const messageId = nextId++;
    frame.contentWindow?.postMessage(JSON.stringify({ sessionId, messageId, timestamp: Date.now(), type, args }), "*");
    return messageId;
  }
  /** @param {"resolve" | "reject"} type @param {number} to @param {unknown} [value] */
  const answer = (type, to, value) => post(type, value === undefined ? { messageId: to } : { messageId: to, value });

  /** @param {"init" | "start"} step @param {string} type @param {unknown} args @param {number} timeoutMs */
  function send(step, type, args, timeoutMs) {
    const id = post(type, args);
    pending.set(id, { step, sent: performance.now() });
    timers.push(window.setTimeout(() => {
      if (!pending.has(id)) return;
      pending.delete(id);
      err(`no answer to ${type} within ${secs(timeoutMs)}`);
      finish();
    }, timeoutMs));
  }
  function init() {
    const dims = { x: 0, y: 0, width: cfg.width, height: cfg.height };
    send("init", "SIMID:Player:init", {
      environmentData: {
        videoDimensions: dims, creativeDimensions: dims, fullscreen: false, fullscreenAllowed: false, variableDurationAllowed: false,
        skippableState: "notSkippable", version: "1.1", siteUrl: location.href, useragent: "cva-simid-harness/1.1", muted: true, volume: 0,
        navigationSupport: "notSupported", closeButtonSupport: "playerHandles",
      },
      creativeData: { adParameters: cfg.adParameters, ...(cfg.clickThruUrl ? { clickThruUrl: cfg.clickThruUrl } : {}) },
    }, cfg.timeouts.initMs);
  }
  function mediaState() {
    return { currentSrc: "", currentTime: 0, duration: cfg.durationSeconds > 0 ? cfg.durationSeconds : -1, ended: false, muted: true, paused: false, volume: 0, fullscreen: false };
  }
  /** @param {Record<string, unknown>} args @returns {string} */
  const detailOf = (args) => {
    /** @type {string[]} */
    const parts = [];
    for (const k of ["errorMessage", "reason", "message", "trackingUrls", "uri", "code"]) {
      const v = args[k];
      if (v !== undefined) parts.push(`${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
    }
    return parts.join("; ").slice(0, 300);
  };

  window.addEventListener("message", (e) => {
    if (finished || e.source !== frame.contentWindow) return;
    /** @type {unknown} */
    let data = e.data;
    if (typeof data === "string") {
      const raw = data;
      try { data = JSON.parse(raw); } catch { err(`a message that is not JSON: ${raw.slice(0, 80)}`); return; }
    }
    if (!data || typeof data !== "object" || typeof (/** @type {{ type?: unknown }} */ (data)).type !== "string") return;
    const m = /** @type {{ type: string, sessionId?: unknown, messageId?: unknown, args?: unknown }} */ (data);
    const args = /** @type {Record<string, unknown>} */ (m.args && typeof m.args === "object" ? m.args : {});
    const argValue = /** @type {Record<string, unknown> | undefined} */ (args.value && typeof args.value === "object" ? args.value : undefined);
    const code = typeof args.errorCode === "number" ? args.errorCode : typeof argValue?.errorCode === "number" ? argValue.errorCode : 0;
    if (r.messages.length < MAX_MESSAGES) r.messages.push({ type: m.type.slice(0, 80), atMs: now(), errorCode: code, detail: detailOf(argValue ?? args) });
    const messageId = typeof m.messageId === "number" ? m.messageId : -1;

    if (m.type === "createSession") {
      if (sessionId !== "") { err("createSession posted again after the session was created"); return; }
      if (typeof m.sessionId !== "string" || m.sessionId === "") { err("createSession without a sessionId"); return; }
      sessionId = m.sessionId;
      r.sessionCreated = true;
      r.sessionMs = now();
      answer("resolve", messageId);
      init();
      return;
    }
    if (sessionId === "") { err(`${m.type} posted before createSession`); return; }
    if (m.sessionId !== sessionId) { err(`${m.type} posted with another sessionId than the session's`); return; }

    if (m.type === "resolve" || m.type === "reject") {
      const to = typeof args.messageId === "number" ? args.messageId : -1;
      const p = pending.get(to);
      if (!p) return; // an answer to a message that needs none, or late: nothing waits for it
      pending.delete(to);
      const took = Math.round(performance.now() - p.sent);
      const value = argValue ?? {};
      const why = `errorCode ${typeof value.errorCode === "number" ? value.errorCode : "(none)"}${typeof value.reason === "string" ? `: ${value.reason.slice(0, 200)}` : ""}`;
      if (p.step === "init") {
        r.initMs = took;
        if (m.type === "resolve") {
          r.initResolved = true;
          send("start", "SIMID:Player:startCreative", {}, cfg.timeouts.startMs);
        } else {
          r.initRejected = true;
          err(`SIMID:Player:init rejected, ${why}`);
          finish();
        }
      } else {
        r.startMs = took;
        if (m.type === "resolve") {
          r.startResolved = true;
          // Shown now (§6.1 step 8); its later messages are watched for a while.
          frame.style.visibility = "visible";
          timers.push(window.setTimeout(finish, cfg.timeouts.watchMs));
        } else {
          r.startRejected = true;
          err(`SIMID:Player:startCreative rejected, ${why}`);
          finish();
        }
      }
      return;
    }
    switch (m.type) {
      case "SIMID:Creative:fatalError":
        // §4.4.4: the creative cannot go on; the player unloads it.
        err(`SIMID:Creative:fatalError, errorCode ${code || "(none)"}${typeof args.errorMessage === "string" ? `: ${args.errorMessage.slice(0, 200)}` : ""}`);
        finish();
        return;
      case "SIMID:Creative:getMediaState":
        answer("resolve", messageId, mediaState());
        return;
      case "SIMID:Creative:reportTracking":
        // Recorded, never fired: the harness sends no tracker request.
        answer("resolve", messageId);
        return;
      case "SIMID:Creative:requestStop":
      case "SIMID:Creative:requestSkip":
      case "SIMID:Creative:requestPause":
      case "SIMID:Creative:requestPlay":
      case "SIMID:Creative:requestChangeAdDuration":
      case "SIMID:Creative:requestChangeVolume":
      case "SIMID:Creative:requestFullscreen":
      case "SIMID:Creative:requestExitFullscreen":
      case "SIMID:Creative:requestNavigation":
      case "SIMID:Creative:requestResize":
      case "SIMID:Creative:expandNonlinear":
      case "SIMID:Creative:collapseNonlinear":
        // What our environmentData declared we cannot do is refused (errorCode 1203: unsupported functionality).
        answer("reject", messageId, { errorCode: 1203, message: "not supported by the CVA SIMID harness" });
        return;
      case "SIMID:Creative:clickThru":
      case "SIMID:Creative:log":
        return;
      default:
        // Another SIMID:Creative message (names differ between versions and drafts, e.g. requestVolume): recorded
        // and refused like the requests above, not a fault. Anything else outside the protocol is one.
        if (m.type.startsWith("SIMID:Creative:")) answer("reject", messageId, { errorCode: 1203, message: "not supported by the CVA SIMID harness" });
        else err(`${m.type.slice(0, 80)} is not a message a creative sends (SIMID 1.1 §4.4)`);
    }
  });

  timers.push(window.setTimeout(() => {
    if (r.sessionCreated) return;
    err(`no createSession within ${secs(cfg.timeouts.sessionMs)}`);
    finish();
  }, cfg.timeouts.sessionMs));
  document.body.appendChild(frame);
  t0 = performance.now();
  frame.src = cfg.url;
}
