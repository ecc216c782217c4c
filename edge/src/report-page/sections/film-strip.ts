import { ms } from "../format.ts";
import { artifactImage, esc, finite, isObj, objs, type J } from "../html.ts";

// A tag's film strip (issue 26): the frames the scan picked across the animation, each with its time, left to right;
// and the click point drawn over the screenshot. Positions are SVG attributes: the CSP allows no style attribute.

export function renderTagFilmStrip(report: J, base: string): string {
  const frames = objs(report.film_strip)
    .map((f) => ({ t: finite(f.time), img: artifactImage(f.image, `Frame at ${ms(finite(f.time) ?? 0)} after the render started`, base, { className: "frame" }) }))
    .filter((f) => f.img && f.t !== undefined);
  if (frames.length === 0) return "";
  const tiles = frames.map((f) => `<figure class="frame-fig">${f.img}<figcaption>${esc(ms(f.t!))}</figcaption></figure>`).join("");
  const note = frames.length === 1 ? "One frame: the creative did not change after it first drew." : `${frames.length} frames picked evenly across the animation, left to right in time; the time is from the start of the render.`;
  return `<div class="film">${tiles}</div><p class="note">${esc(note)}</p>`;
}

/**
 * An SVG drawn over the screenshot (same box: the creative's, `dimensions` CSS px) with a ring where the scanner
 * clicked; "" when it did not click or clicked outside the screenshot.
 */
export function clickMarker(report: J): string {
  const p = report.click_point;
  const dims = isObj(report.dimensions) ? report.dimensions : {};
  const w = finite(dims.width), h = finite(dims.height);
  if (!isObj(p) || p.inside_screenshot !== true || !w || !h) return "";
  const x = finite(p.screenshot_x), y = finite(p.screenshot_y);
  if (x === undefined || y === undefined) return "";
  const r = Math.max(6, Math.round(Math.min(w, h) / 20));
  return `<svg class="click" viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" role="img" aria-label="The scanner clicked at ${esc(`${x}, ${y}`)} CSS px">
<circle class="ring" cx="${x}" cy="${y}" r="${r}"/><circle class="dot" cx="${x}" cy="${y}" r="${Math.max(2, Math.round(r / 4))}"/></svg>`;
}
