// @ts-check
// Runs in a frame's isolated world after the render: the visible control a viewer would use to pause or stop the
// motion (WCAG 2.2.2), and what axe cannot check — canvases that painted and images large enough to carry text.

/**
 * @param {number} maxCandidates
 * @returns {import("../accessibility.ts").FrameA11yProbe}
 */
function a11yProbe(maxCandidates) {
  const NAME = /\b(pause|stop)\b|⏸|⏹|❚❚|\u23f8|\u23f9/i;
  // Offset of this frame in the top viewport, through same-origin parents (a cross-origin parent stops it: null).
  /** @type {{x: number, y: number} | null} */
  let offset = { x: 0, y: 0 };
  try {
    /** @type {Window} */
    let w = window;
    while (w !== w.parent) {
      const fe = w.frameElement;
      if (!fe) { offset = null; break; }
      const r = fe.getBoundingClientRect();
      offset.x += r.left + fe.clientLeft;
      offset.y += r.top + fe.clientTop;
      w = w.parent;
    }
  } catch {
    offset = null;
  }
  /** @param {Element} el */
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 4 || r.height < 4) return null;
    if (r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth || r.top >= innerHeight) return null;
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || cs.display === "none" || Number(cs.opacity) === 0) return null;
    return r;
  };
  /** @param {Element} el */
  const nameOf = (el) => {
    const label = el.getAttribute("aria-label") || el.getAttribute("title") || "";
    if (label.trim()) return label.trim();
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = by.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? "").join(" ").trim();
      if (t) return t;
    }
    if (el instanceof HTMLInputElement) return (el.value || el.alt || "").trim();
    const text = (el.textContent || "").replace(/\s+/g, " ").trim();
    if (text) return text.slice(0, 80);
    const img = el.querySelector("img[alt], svg title");
    return (img?.getAttribute("alt") || img?.textContent || "").trim();
  };
  /** @type {Array<{name: string, x: number, y: number}>} */
  const controls = [];
  const clickable = document.querySelectorAll("button, [role=button], a, input[type=button], input[type=image], input[type=submit], [onclick], [aria-label], [title]");
  for (const el of Array.from(clickable).slice(0, 2000)) {
    if (controls.length >= maxCandidates) break;
    const name = nameOf(el);
    if (!name || name.length > 40 || !NAME.test(name)) continue;
    const r = visible(el);
    if (!r || !offset) continue;
    controls.push({ name, x: offset.x + r.left + r.width / 2, y: offset.y + r.top + r.height / 2 });
  }
  let canvases = 0;
  for (const c of Array.from(document.querySelectorAll("canvas")).slice(0, 500)) {
    const r = visible(c);
    if (r && r.width * r.height >= 400) canvases++;
  }
  // Images big enough to hold a line of text (40x12 CSS px): <img>, <input type=image>, CSS background images.
  let images = 0;
  for (const el of Array.from(document.querySelectorAll("body *")).slice(0, 3000)) {
    const r = visible(el);
    if (!r || r.width < 40 || r.height < 12) continue;
    if (el instanceof HTMLImageElement || (el instanceof HTMLInputElement && el.type === "image") || /url\(/.test(getComputedStyle(el).backgroundImage)) images++;
  }
  return { controls, canvases, images };
}
