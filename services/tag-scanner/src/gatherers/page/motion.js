// @ts-check
/// <reference lib="dom.iterable" />
// The render watch's DOM probe (gatherers/render-watch.ts), run in each frame's isolated world: animations with
// their remaining time, playing videos, visible images.

/**
 * @param {string | null} pingEvent Dispatched on the window first, so that the frame's realm reports at once
 *   (instrument.js): the report and this look then speak of the same moment.
 * @param {boolean} afterTwoFrames Answer only after two rendered frames (the top document: see probeMotion).
 * @returns {FrameMotion | Promise<FrameMotion>}
 */
function motionProbe(pingEvent, afterTwoFrames) {
  if (pingEvent) {
    try { dispatchEvent(new Event(pingEvent)); } catch (e) {}
  }
  if (afterTwoFrames) return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(look()))));
  return look();
}

/** @typedef {import("../render-watch.ts").FrameMotion} FrameMotion */

/** @returns {FrameMotion} */
function look() {
  /** @param {Element | null} el */
  const vis = (el) => {
    try {
      if (!el || !el.isConnected || !el.getBoundingClientRect) return false;
      const r = el.getBoundingClientRect();
      if (r.width <= 2 || r.height <= 2) return false;
      return el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true;
    } catch (e) { return false; }
  };
  /** @type {FrameMotion} */
  const out = { anims: [], videos: [], images: [], handlers: 0 };
  const { anims, videos, images } = out;
  // Wall-clock time of the rendering frame the animation clocks stand at: remaining times count from there, not from
  // now (a starved renderer's timeline can be a frame or more behind the moment this look runs).
  let frameWall = Date.now();
  try {
    const tl = Number(document.timeline.currentTime);
    if (isFinite(tl)) frameWall = Date.now() - Math.max(0, performance.now() - tl);
  } catch (e) {}
  try {
    for (const a of document.getAnimations()) {
      if (anims.length >= 200) break;
      if (a.playState !== "running" && !a.pending) continue;
      const e = /** @type {KeyframeEffect | null} */ (a.effect);
      if (!e) continue;
      const t = e.getComputedTiming();
      const rate = Math.abs(a.playbackRate) || 1;
      const cur = Number(a.currentTime) || 0;
      const end = Number(t.endTime);
      const infinite = !isFinite(end) || !isFinite(Number(t.activeDuration));
      const iter = Number(t.duration) || 0;
      const remaining = infinite ? -1 : Math.max(0, (end - cur) / rate);
      anims.push({ remaining, period: isFinite(iter) ? iter / rate : 0, visible: e.target ? vis(e.target) : true, ...(remaining > 0 && a.playState === "running" ? { endsAt: frameWall + remaining } : {}) });
    }
  } catch (e) {}
  try {
    // SVG SMIL animations are not in getAnimations(); their own timeline says what is still to come. An animation
    // that waits for an event (begin="click", "indefinite") has no resolved start and is skipped; one cut short by an
    // end attribute is left to the pixels rather than called endless.
    /** A SMIL clock value in seconds ("3s", "500ms", "2"); NaN when unreadable. @param {string | null} v */
    const secs = (v) => { const m = /^\s*([0-9.]+)\s*(ms|s)?\s*$/.exec(v || ""); return m ? Number(m[1]) / (m[2] === "ms" ? 1000 : 1) : NaN; };
    let seen = 0;
    for (const el of /** @type {NodeListOf<SVGAnimationElement>} */ (document.querySelectorAll("animate, animateTransform, animateMotion, set"))) {
      if (anims.length >= 200 || ++seen > 1000) break;
      const svg = el.ownerSVGElement;
      if (!svg || (svg.animationsPaused && svg.animationsPaused())) continue;
      let start;
      try { start = el.getStartTime(); } catch (e) { continue; }
      let dur;
      try { dur = el.getSimpleDuration(); } catch (e) { dur = 0; }
      if (!isFinite(dur)) dur = 0;
      const rc = el.getAttribute("repeatCount"), rd = el.getAttribute("repeatDur");
      let active = dur;
      if (rc === "indefinite" || rd === "indefinite") active = el.hasAttribute("end") ? dur : Infinity;
      else {
        if (rc && isFinite(Number(rc))) active = dur * Number(rc);
        if (rd && isFinite(secs(rd))) active = secs(rd);
      }
      const now = svg.getCurrentTime();
      const remaining = isFinite(active) ? Math.max(0, (start + active - now) * 1000) : -1;
      anims.push({ remaining, period: dur * 1000, visible: vis(el.targetElement), ...(remaining > 0 ? { endsAt: Date.now() + remaining } : {}) });
    }
  } catch (e) {}
  try {
    for (const v of document.querySelectorAll("video")) {
      if (videos.length >= 50) break;
      if (v.ended) continue;
      // An autoplay video still loading is about to play: keep watching (its length is not known yet).
      if (v.paused) {
        if (v.autoplay && v.networkState !== 3 && v.readyState < 3 && !v.error) videos.push({ remaining: 30000, period: 0, visible: vis(v) });
        continue;
      }
      const d = v.duration, rate = Math.abs(v.playbackRate) || 1;
      // Unknown length (metadata not loaded yet, a live stream): keep watching, but it is no proof of endlessness.
      const remaining = v.loop ? -1 : isFinite(d) ? Math.max(0, ((d - v.currentTime) * 1000) / rate) : 30000;
      videos.push({ remaining, period: isFinite(d) ? (d * 1000) / rate : 0, visible: vis(v) });
    }
  } catch (e) {}
  try {
    for (const img of document.images) {
      if (images.length >= 100) break;
      if (img.currentSrc && vis(img)) images.push(img.currentSrc);
    }
  } catch (e) {}
  try {
    // CSS background images on screen (an animated SVG or GIF as a background): the first url() of each visible
    // element's computed background, bounded like the rest of the probe.
    let seen = 0;
    for (const el of document.querySelectorAll("body *")) {
      if (images.length >= 100 || ++seen > 600) break;
      const bg = getComputedStyle(el).backgroundImage;
      if (!bg || bg === "none") continue;
      const m = /url\(\s*["']?([^"')]+)["']?\s*\)/.exec(bg);
      if (m && vis(el)) images.push(m[1]);
    }
  } catch (e) {}
  try {
    // Inline handlers a creative stops or chains motion with (<div onanimationiteration="…">): as the instrument's
    // listener count (instrument.js `stoppers`), which only sees handlers set from script.
    out.handlers = document.querySelectorAll("[onanimationstart],[onanimationiteration],[onanimationend],[onanimationcancel],[ontransitionend],[ontransitionstart],[ontransitionrun],[onended],[ontimeupdate],[onend],[onrepeat],[onbegin]").length;
  } catch (e) {}
  return out;
}
