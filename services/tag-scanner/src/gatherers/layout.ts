// Measures the creative's box in the page: the union of the boxes of everything that paints (replaced elements,
// elements with a background, border or shadow, text runs), each clipped by its overflow-clipping ancestors, in
// document coordinates. The html/body canvas background is ignored (it paints the whole viewport and is the host
// page's, or the bundle page's backdrop, not the ad). An <iframe> counts as its own box: what a frame shows is
// clipped to it. Also returns the largest clickable element (the click-through target) and the ad.size meta.

export interface Rect { x: number; y: number; width: number; height: number }

export interface LayoutArtifact {
  box: Rect | null;
  /** Centre of the largest link / clickable element inside the box, in viewport coordinates. */
  click: { x: number; y: number } | null;
  viewport: { width: number; height: number };
  /** <meta name="ad.size" content="width=300,height=250"> of the top document, when present. */
  adSizeMeta: { width: number; height: number } | null;
}

export const LAYOUT_SCRIPT = `(() => {
  const sx = window.scrollX, sy = window.scrollY;
  let L = Infinity, T = Infinity, R = -Infinity, B = -Infinity;
  const alpha = (c) => { const m = /rgba?\\(([^)]+)\\)/.exec(c || ""); if (!m) return c && c !== "transparent" ? 1 : 0; const p = m[1].split(/[ ,/]+/).filter(Boolean); return p.length > 3 ? parseFloat(p[3]) : 1; };
  const clipCache = new Map();
  const clipRect = (el) => {
    // Intersection of the rects of the ancestors that clip overflow; cached per element.
    if (!el || el === document.body || el === document.documentElement) return null;
    if (clipCache.has(el)) return clipCache.get(el);
    let c = clipRect(el.parentElement);
    const cs = getComputedStyle(el);
    if (cs.overflowX !== "visible" || cs.overflowY !== "visible") {
      const r = el.getBoundingClientRect();
      const own = { l: r.left, t: r.top, r: r.right, b: r.bottom };
      c = c ? { l: Math.max(c.l, own.l), t: Math.max(c.t, own.t), r: Math.min(c.r, own.r), b: Math.min(c.b, own.b) } : own;
    }
    clipCache.set(el, c);
    return c;
  };
  const add = (r, parent) => {
    let l = r.left, t = r.top, rr = r.right, b = r.bottom;
    const c = clipRect(parent);
    if (c) { l = Math.max(l, c.l); t = Math.max(t, c.t); rr = Math.min(rr, c.r); b = Math.min(b, c.b); }
    l += sx; rr += sx; t += sy; b += sy;
    l = Math.max(0, l); t = Math.max(0, t);
    if (rr - l < 1 || b - t < 1) return;
    L = Math.min(L, l); T = Math.min(T, t); R = Math.max(R, rr); B = Math.max(B, b);
  };
  const visible = (el) => { try { return el.checkVisibility({ opacityProperty: true, visibilityProperty: true }); } catch (e) { return true; } };
  const REPLACED = new Set(["IMG", "VIDEO", "CANVAS", "IFRAME", "EMBED", "OBJECT", "INPUT", "BUTTON", "SELECT", "TEXTAREA", "svg", "PICTURE", "FRAME"]);
  const clickables = [];
  const all = document.querySelectorAll("body *");
  const max = Math.min(all.length, 5000);
  for (let i = 0; i < max; i++) {
    const el = all[i];
    if (el.tagName === "SCRIPT" || el.tagName === "STYLE" || el.tagName === "NOSCRIPT") continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    if (!visible(el)) continue;
    const cs = getComputedStyle(el);
    let paints = REPLACED.has(el.tagName);
    if (el.tagName === "IMG" && !(el.complete && el.naturalWidth > 0)) paints = alpha(cs.backgroundColor) > 0;
    if (!paints && (alpha(cs.backgroundColor) > 0 || cs.backgroundImage !== "none" || cs.boxShadow !== "none")) paints = true;
    if (!paints) {
      for (const s of ["Top", "Right", "Bottom", "Left"]) {
        if (parseFloat(cs["border" + s + "Width"]) > 0 && cs["border" + s + "Style"] !== "none" && cs["border" + s + "Style"] !== "hidden" && alpha(cs["border" + s + "Color"]) > 0) { paints = true; break; }
      }
    }
    if (paints) add(r, el.parentElement);
    if ((el.tagName === "A" && el.href) || el.tagName === "AREA" || el.tagName === "BUTTON" || el.tagName === "IFRAME" || el.hasAttribute("onclick") || cs.cursor === "pointer") clickables.push({ el, r });
  }
  // Text runs paint too (a text-only creative has no box otherwise).
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  let n, count = 0;
  while ((n = walker.nextNode()) && count++ < 5000) {
    if (!n.nodeValue || !n.nodeValue.trim()) continue;
    const p = n.parentElement;
    if (!p || p.tagName === "SCRIPT" || p.tagName === "STYLE" || p.tagName === "NOSCRIPT" || !visible(p)) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    add(range.getBoundingClientRect(), p);
  }
  const box = R > L && B > T ? { x: L, y: T, width: R - L, height: B - T } : null;
  let click = null;
  if (box) {
    let best = 0;
    for (const { r } of clickables) {
      const w = Math.min(r.right + sx, box.x + box.width) - Math.max(r.left + sx, box.x);
      const h = Math.min(r.bottom + sy, box.y + box.height) - Math.max(r.top + sy, box.y);
      if (w > 0 && h > 0 && w * h > best) {
        best = w * h;
        const cx = (Math.max(r.left + sx, box.x) + Math.min(r.right + sx, box.x + box.width)) / 2 - sx;
        const cy = (Math.max(r.top + sy, box.y) + Math.min(r.bottom + sy, box.y + box.height)) / 2 - sy;
        click = { x: cx, y: cy };
      }
    }
    if (!click) click = { x: box.x + box.width / 2 - sx, y: box.y + box.height / 2 - sy };
  }
  let adSizeMeta = null;
  const meta = document.querySelector('meta[name="ad.size"]');
  if (meta) {
    const c = meta.getAttribute("content") || "";
    const w = /width\\s*=\\s*(\\d+)/i.exec(c), h = /height\\s*=\\s*(\\d+)/i.exec(c);
    if (w && h) adSizeMeta = { width: +w[1], height: +h[1] };
  }
  return { box, click, viewport: { width: window.innerWidth, height: window.innerHeight }, adSizeMeta };
})()`;
