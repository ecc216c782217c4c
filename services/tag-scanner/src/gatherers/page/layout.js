// @ts-check
/// <reference lib="dom.iterable" />
// The layout probe (gatherers/layout.ts): the creative's box in the page — the union of what paints (replaced
// elements, elements with a background, border, outline or shadow, text runs), each clipped the way the browser clips
// it, in document coordinates. The html/body canvas background is ignored (it paints the whole viewport and is the
// host page's, or the bundle page's backdrop, not the ad). Also returns the largest clickable element (the
// click-through target) and the ad.size meta.
//
// What counts is what a viewer sees as the ad:
// - Trackers do not: a painted area of at most 2x2 CSS px, and an <img> whose natural size is at most 2x2 (a
//   tracking pixel sits on a line box's baseline below the ad, which is how a 1x1 <img> after a 300x250 block used
//   to make it 300x264; the line box itself paints nothing).
// - Hidden things do not: display:none, visibility:hidden, opacity 0 (checkVisibility), off-screen (negative
//   document coordinates, fixed elements outside the viewport), clipped away (overflow of the ancestors that really
//   clip the element — containing-block chain for absolute and fixed boxes —, `clip`, `clip-path: inset()`).
// - Outlines and outer box-shadows count where they paint outside the border box.
//
// Runs in an isolated world (CDP Page.createIsolatedWorld), so the creative's own overrides of DOM methods are not
// seen. Named properties are the one thing an isolated world shares with the page (`<form name=body>` shadows
// document.body; `<input name=getBoundingClientRect>` shadows that method of its form), so DOM accessors are taken
// from the prototypes and called on the node.

/** Edges in viewport coordinates (a clip, or what an element paints). @typedef {{ l: number, t: number, r: number, b: number }} Edges */

/** @returns {import("../layout.ts").LayoutArtifact} */
function layoutProbe() {
  const EP = Element.prototype, NP = Node.prototype, DP = Document.prototype;
  /**
   * A method taken from its prototype, called with the node as its first argument.
   * @template {unknown[]} A
   * @template R
   * @param {(...args: A) => R} f
   * @returns {(self: object, ...args: A) => R}
   */
  const call = (f) => Function.prototype.call.bind(f);
  /**
   * An accessor taken from its prototype, read on the node.
   * @template {object} P
   * @template {keyof P} K
   * @param {P} proto
   * @param {K} name
   * @returns {(self: object) => P[K] | null}
   */
  const getter = (proto, name) => { const d = Object.getOwnPropertyDescriptor(proto, name); return d && d.get ? call(d.get) : () => null; };
  const rectOf = call(EP.getBoundingClientRect);
  const tagOf = getter(EP, "tagName");
  const nodeTypeOf = getter(NP, "nodeType");
  const parentElementOf = getter(NP, "parentElement");
  const parentNodeOf = getter(NP, "parentNode");
  const shadowRootOf = getter(EP, "shadowRoot");
  const hostOf = getter(ShadowRoot.prototype, "host");
  const slotOf = getter(EP, "assignedSlot");
  const textSlotOf = getter(Text.prototype, "assignedSlot");
  const hasAttr = call(EP.hasAttribute);
  const checkVis = EP.checkVisibility ? call(EP.checkVisibility) : null;
  const body = getter(DP, "body")(document);
  const root = getter(DP, "documentElement")(document);
  const walkerOf = call(DP.createTreeWalker);
  const rangeOf = call(DP.createRange);
  const querySelectorOf = call(DP.querySelector);
  const contentWindowOf = getter(HTMLObjectElement.prototype, "contentWindow");
  const sx = window.scrollX, sy = window.scrollY, vw = window.innerWidth, vh = window.innerHeight;

  /** @type {Map<Element, CSSStyleDeclaration>} */
  const styles = new Map();
  /** @param {Element} el */
  const style = (el) => { let s = styles.get(el); if (!s) { s = getComputedStyle(el); styles.set(el, s); } return s; };
  /** @param {string} v */
  const px = (v) => { const n = parseFloat(v); return isFinite(n) ? n : 0; };
  // Alpha of a computed colour: rgb()/rgba() with commas, or any colour function with a "/ alpha" part.
  /** @param {string | null} c */
  const alpha = (c) => {
    if (!c || c === "transparent") return 0;
    const m = /\(([^)]*)\)/.exec(c);
    if (!m) return 1;
    const slash = m[1].split("/");
    let a = slash.length > 1 ? slash[1].trim() : null;
    if (a === null) { const p = m[1].split(","); if (p.length > 3) a = p[3].trim(); }
    if (a === null || a === "") return 1;
    return a.endsWith("%") ? parseFloat(a) / 100 : parseFloat(a);
  };

  // Clip rectangles are viewport coordinates {l, t, r, b}; null = nothing clips.
  /** @type {(a: Edges | null, b: Edges | null) => Edges | null} */
  const inter = (a, b) => !a ? b : !b ? a : { l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) };
  /** @param {Node} n @returns {Element | null} */
  const flatParent = (n) => {
    const slot = nodeTypeOf(n) === 1 ? slotOf(n) : textSlotOf(n);
    if (slot) return slot;
    const p = parentElementOf(n);
    if (p) return p;
    const pn = parentNodeOf(n);
    return pn && pn instanceof ShadowRoot ? hostOf(pn) : null;
  };
  // The viewport's scrolling comes from html/body overflow, not a clip of the ad.
  /** @param {Element} el @param {CSSStyleDeclaration} cs @returns {Edges | null} */
  const overflowClip = (el, cs) => {
    if (el === body || el === root) return null;
    const cx = cs.overflowX !== "visible", cy = cs.overflowY !== "visible";
    if (!cx && !cy) return null;
    const r = rectOf(el);
    // Descendants are clipped to the padding box.
    return {
      l: cx ? r.left + px(cs.borderLeftWidth) : -Infinity, r: cx ? r.right - px(cs.borderRightWidth) : Infinity,
      t: cy ? r.top + px(cs.borderTopWidth) : -Infinity, b: cy ? r.bottom - px(cs.borderBottomWidth) : Infinity,
    };
  };
  /** @param {string} v @param {number} size */
  const lengthIn = (v, size) => v.endsWith("%") ? parseFloat(v) / 100 * size : px(v);
  // clip: rect() (absolute/fixed boxes) and clip-path shapes: what they leave of the element and its descendants.
  /** @param {Element} el @param {CSSStyleDeclaration} cs */
  const shapeClip = (el, cs) => {
    /** @type {Edges | null} */
    let c = null;
    if ((cs.position === "absolute" || cs.position === "fixed") && cs.clip && cs.clip.startsWith("rect(")) {
      const r = rectOf(el);
      const v = cs.clip.slice(5, -1).split(/[ ,]+/).filter(Boolean);
      if (v.length === 4) {
        /** @param {string} s @param {number} d */
        const at = (s, d) => s === "auto" ? d : px(s);
        c = { t: r.top + at(v[0], 0), r: r.left + at(v[1], r.width), b: r.top + at(v[2], r.height), l: r.left + at(v[3], 0) };
      }
    }
    const cp = cs.clipPath;
    if (cp && cp !== "none") {
      const r = rectOf(el);
      const m = /^(inset|circle|ellipse|polygon)\(([^)]*)\)/.exec(cp);
      if (m && m[1] === "inset") {
        const v = m[2].split(/\s+round\s+/)[0].trim().split(/\s+/);
        const t = v[0] || "0px", ri = v[1] || t, b = v[2] || t, l = v[3] || ri;
        c = inter(c, { t: r.top + lengthIn(t, r.height), r: r.right - lengthIn(ri, r.width), b: r.bottom - lengthIn(b, r.height), l: r.left + lengthIn(l, r.width) });
      } else if (m && m[1] === "polygon") {
        let L = Infinity, T = Infinity, R = -Infinity, B = -Infinity;
        for (const pt of m[2].replace(/^\s*(nonzero|evenodd)\s*,/, "").split(",")) {
          const xy = pt.trim().split(/\s+/);
          if (xy.length < 2) continue;
          const x = r.left + lengthIn(xy[0], r.width), y = r.top + lengthIn(xy[1], r.height);
          L = Math.min(L, x); R = Math.max(R, x); T = Math.min(T, y); B = Math.max(B, y);
        }
        if (L <= R) c = inter(c, { l: L, t: T, r: R, b: B });
      } else if (m && m[1] === "circle" && /^0(px|%)?(\s|$)/.test(m[2].trim())) {
        c = { l: 0, t: 0, r: 0, b: 0 };
      }
    }
    return c;
  };
  // Whether an ancestor is the containing block of an absolute / fixed box (and so the first overflow that clips it).
  /** @param {Element} el @param {string} position */
  const containsBox = (el, position) => {
    const cs = style(el);
    if (position === "absolute" && cs.position !== "static") return true;
    return cs.transform !== "none" || (cs.translate && cs.translate !== "none") || (cs.rotate && cs.rotate !== "none") ||
      (cs.scale && cs.scale !== "none") || cs.perspective !== "none" || cs.filter !== "none" ||
      (cs.backdropFilter && cs.backdropFilter !== "none") || /paint|layout|strict|content/.test(cs.contain || "") ||
      /transform|perspective|filter/.test(cs.willChange || "") || (cs.containerType && cs.containerType !== "normal");
  };
  /** @type {Map<Element, Edges | null>} */
  const clipCache = new Map(), innerCache = new Map();
  // The clip that applies to what an element's descendants paint.
  /** @param {Element | null} el @returns {Edges | null} */
  const innerClip = (el) => {
    if (!el) return null;
    if (innerCache.has(el)) return innerCache.get(el) ?? null;
    const cs = style(el);
    const c = inter(clipOf(el), inter(shapeClip(el, cs), overflowClip(el, cs)));
    innerCache.set(el, c);
    return c;
  };
  // The clip that applies to what an element paints (its outline and shadow included).
  /** @param {Element} el @returns {Edges | null} */
  const clipOf = (el) => {
    if (clipCache.has(el)) return clipCache.get(el) ?? null;
    const position = nodeTypeOf(el) === 1 ? style(el).position : "static";
    let c = null, p = flatParent(el);
    if (position === "absolute" || position === "fixed") {
      // Overflow of ancestors below the containing block does not clip it; their clip-path does.
      while (p && !containsBox(p, position)) { c = inter(c, shapeClip(p, style(p))); p = flatParent(p); }
      if (!p && position === "fixed") c = inter(c, { l: 0, t: 0, r: vw, b: vh });
    }
    c = inter(c, innerClip(p));
    clipCache.set(el, c);
    return c;
  };

  /** @type {Edges | null} */
  let box = null;
  /** @type {Edges | null} */
  let own = null;
  /** @type {(u: Edges | null, r: Edges) => Edges} */
  const grow = (u, r) => !u ? r : { l: Math.min(u.l, r.l), t: Math.min(u.t, r.t), r: Math.max(u.r, r.r), b: Math.max(u.b, r.b) };
  /** @param {Edges} e @param {Edges | null} clip @param {boolean} frame */
  const add = (e, clip, frame) => {
    let l = e.l, t = e.t, r = e.r, b = e.b;
    if (clip) { l = Math.max(l, clip.l); t = Math.max(t, clip.t); r = Math.min(r, clip.r); b = Math.min(b, clip.b); }
    l = Math.max(0, l + sx); t = Math.max(0, t + sy); r += sx; b += sy;
    if (r - l <= 0 || b - t <= 0) return;
    if (r - l <= 2 && b - t <= 2) return;
    const d = { l, t, r, b };
    box = grow(box, d);
    if (!frame) own = grow(own, d);
  };
  // Outline and outer shadows: how far beyond the border box they paint, per side.
  /** @param {CSSStyleDeclaration} cs @param {DOMRect} r @returns {Edges | null} */
  const beyond = (cs, r) => {
    const o = { l: 0, t: 0, r: 0, b: 0 };
    let paints = false;
    if (cs.outlineStyle !== "none" && px(cs.outlineWidth) > 0 && alpha(cs.outlineColor) > 0) {
      const w = Math.max(0, px(cs.outlineWidth) + px(cs.outlineOffset));
      o.l = o.t = o.r = o.b = w;
      paints = true;
    }
    const bs = cs.boxShadow;
    if (bs && bs !== "none") {
      // Split at the commas between shadows, not those inside colour functions.
      /** @type {string[]} */
      const list = []; let depth = 0, start = 0;
      for (let i = 0; i < bs.length; i++) {
        const ch = bs[i];
        if (ch === "(") depth++; else if (ch === ")") depth--; else if (ch === "," && depth === 0) { list.push(bs.slice(start, i)); start = i + 1; }
      }
      list.push(bs.slice(start));
      for (const s of list) {
        /** @type {string | null} */
        let color = null;
        const rest = s.replace(/[a-z-]+\([^)]*\)/gi, (m) => { color = m; return " "; });
        if (color !== null ? alpha(color) <= 0 : /(^|\s)transparent(\s|$)/.test(rest)) continue;
        const inset = /(^|\s)inset(\s|$)/.test(rest);
        const n = (rest.match(/-?[0-9.]+(e-?[0-9]+)?px/g) || []).map(parseFloat);
        const x = n[0] || 0, y = n[1] || 0, blur = Math.max(0, n[2] || 0), spread = n[3] || 0;
        if (inset) { paints = true; continue; }
        if (blur === 0 && (r.width + 2 * spread <= 0 || r.height + 2 * spread <= 0)) continue;
        paints = true;
        o.l = Math.max(o.l, spread + blur - x); o.r = Math.max(o.r, spread + blur + x);
        o.t = Math.max(o.t, spread + blur - y); o.b = Math.max(o.b, spread + blur + y);
      }
    }
    return paints ? o : null;
  };
  /** @param {Element} el */
  const visible = (el) => { if (!checkVis) return true; try { return checkVis(el, { opacityProperty: true, visibilityProperty: true }); } catch (e) { return true; } };
  /** @type {Set<string | null>} */
  const REPLACED = new Set(["IMG", "VIDEO", "CANVAS", "INPUT", "BUTTON", "SELECT", "TEXTAREA", "svg"]);
  /** @type {Set<string | null>} */
  const FRAMES = new Set(["IFRAME", "FRAME", "EMBED", "OBJECT"]);
  /** @type {Set<string | null>} */
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
  const BORDERS = /** @type {const} */ ([
    ["borderTopStyle", "borderTopWidth", "borderTopColor"], ["borderRightStyle", "borderRightWidth", "borderRightColor"],
    ["borderBottomStyle", "borderBottomWidth", "borderBottomColor"], ["borderLeftStyle", "borderLeftWidth", "borderLeftColor"],
  ]);

  /** @type {Element[]} */
  const elements = [];
  /** @type {Text[]} */
  const texts = [];
  let budget = 10000;
  /** @param {Node} start */
  const walk = (start) => {
    const w = walkerOf(document, start, 5);
    for (let n = w.nextNode(); n && budget > 0; n = w.nextNode()) {
      budget--;
      if (nodeTypeOf(n) === 3) { texts.push(/** @type {Text} */ (n)); continue; }
      elements.push(/** @type {Element} */ (n));
      const sr = shadowRootOf(n);
      if (sr) walk(sr);
    }
  };
  walk(/** @type {Node} */ (body || root));

  /** @type {Array<{ el: Element, r: DOMRect }>} */
  const clickables = [];
  for (const el of elements) {
    const tag = tagOf(el);
    if (SKIP.has(tag)) continue;
    const r = rectOf(el);
    if (r.width <= 0 && r.height <= 0) continue;
    if (!visible(el)) continue;
    const cs = style(el);
    const frame = FRAMES.has(tag) && (tag !== "OBJECT" || contentWindowOf(el) !== null);
    let content = REPLACED.has(tag) || frame;
    // A tracking pixel paints nothing a viewer sees, whatever size the markup gives it; an image not (yet) decoded
    // paints nothing either.
    const img = /** @type {HTMLImageElement} */ (el);
    if (tag === "IMG" && !(img.complete && img.naturalWidth > 0 && (img.naturalWidth > 2 || img.naturalHeight > 2))) content = false;
    let decorated = alpha(cs.backgroundColor) > 0 || cs.backgroundImage !== "none";
    if (!decorated) {
      for (const [bs, bw, bc] of BORDERS) {
        const bst = cs[bs];
        if (px(cs[bw]) > 0 && bst !== "none" && bst !== "hidden" && alpha(cs[bc]) > 0) { decorated = true; break; }
      }
    }
    const out = beyond(cs, r);
    if (content || decorated || out) {
      const o = out || { l: 0, t: 0, r: 0, b: 0 };
      // clip and clip-path cut the element's own painting too, its outline and shadow included.
      const clip = inter(clipOf(el), shapeClip(el, cs));
      const edges = { l: r.left - o.l, t: r.top - o.t, r: r.right + o.r, b: r.bottom + o.b };
      // The frame's content is measured in its own document; here it counts only for the fallback box.
      if (frame) add({ l: r.left, t: r.top, r: r.right, b: r.bottom }, clip, true);
      if (decorated || out || !frame) add(edges, clip, false);
    }
    if (r.width >= 1 && r.height >= 1 && ((tag === "A" && /** @type {HTMLAnchorElement} */ (el).href) || tag === "AREA" || tag === "BUTTON" || tag === "IFRAME" || hasAttr(el, "onclick") || cs.cursor === "pointer")) clickables.push({ el, r });
  }
  // Text runs paint too (a text-only creative has no box otherwise).
  for (const n of texts) {
    if (!n.nodeValue || !n.nodeValue.trim()) continue;
    const p = flatParent(n);
    if (!p || SKIP.has(tagOf(p))) continue;
    // A slot or a display:contents parent has no box of its own, and checkVisibility says false for it.
    /** @type {Element | null} */
    let holder = p;
    while (holder && style(holder).display === "contents") holder = flatParent(holder);
    if (holder && !visible(holder)) continue;
    const cs = style(p);
    const fill = cs.webkitTextFillColor || cs.color;
    if (alpha(fill) <= 0 && cs.textShadow === "none" && !(px(cs.webkitTextStrokeWidth) > 0)) continue;
    const range = rangeOf(document);
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    add({ l: r.left, t: r.top, r: r.right, b: r.bottom }, innerClip(p), false);
  }
  /** @param {Edges | null} u */
  const toRect = (u) => u ? { x: u.l, y: u.t, width: u.r - u.l, height: u.b - u.t } : null;
  const boxRect = toRect(box);
  /** @type {{ x: number, y: number } | null} */
  let click = null;
  if (boxRect) {
    let best = 0;
    for (const { r } of clickables) {
      const w = Math.min(r.right + sx, boxRect.x + boxRect.width) - Math.max(r.left + sx, boxRect.x);
      const h = Math.min(r.bottom + sy, boxRect.y + boxRect.height) - Math.max(r.top + sy, boxRect.y);
      if (w > 0 && h > 0 && w * h > best) {
        best = w * h;
        const cx = (Math.max(r.left + sx, boxRect.x) + Math.min(r.right + sx, boxRect.x + boxRect.width)) / 2 - sx;
        const cy = (Math.max(r.top + sy, boxRect.y) + Math.min(r.bottom + sy, boxRect.y + boxRect.height)) / 2 - sy;
        click = { x: cx, y: cy };
      }
    }
    if (!click) click = { x: boxRect.x + boxRect.width / 2 - sx, y: boxRect.y + boxRect.height / 2 - sy };
  }
  // The same choice among this document's own clickables, frame elements left out (viewport coordinates, clipped to
  // the box): the caller weighs it against what each child frame's document offers (frame-layout.ts), so that a link
  // inside a frame is clicked rather than the frame's centre.
  /** @type {{ x: number, y: number, width: number, height: number } | null} */
  let clickTarget = null;
  if (boxRect) {
    let best = 0;
    for (const { el, r } of clickables) {
      if (FRAMES.has(tagOf(el))) continue;
      const l = Math.max(r.left + sx, boxRect.x), t = Math.max(r.top + sy, boxRect.y);
      const w = Math.min(r.right + sx, boxRect.x + boxRect.width) - l, h = Math.min(r.bottom + sy, boxRect.y + boxRect.height) - t;
      if (w > 0 && h > 0 && w * h > best) { best = w * h; clickTarget = { x: l - sx, y: t - sy, width: w, height: h }; }
    }
  }
  /** @type {{ width: number, height: number } | null} */
  let adSizeMeta = null;
  const meta = querySelectorOf(document, 'meta[name="ad.size"]');
  if (meta) {
    const c = meta.getAttribute("content") || "";
    const w = /width\s*=\s*(\d+)/i.exec(c), h = /height\s*=\s*(\d+)/i.exec(c);
    if (w && h) adSizeMeta = { width: +w[1], height: +h[1] };
  }
  return { box: boxRect, ownBox: toRect(own), scroll: { x: sx, y: sy }, click, clickTarget, viewport: { width: vw, height: vh }, adSizeMeta };
}
