import { ms } from "../format.ts";
import { artifactImage, esc, finite, isArtifactUrl, isObj, objs, safeUrl, type J } from "../html.ts";

// A tag's or zip's film strip (issue 26): the frames the scan picked across the animation, each with its time, left to
// right; and the click point drawn over the screenshot. Positions are SVG attributes: the CSP allows no style attribute.

/**
 * Where the creative's box lies in the viewport, CSS px, when the report says so: the click point is given both in
 * viewport px and in the screenshot's (the box's) px, so their difference is the box's top-left corner. Undefined when
 * the scanner did not click.
 */
function creativeBox(report: J): { x: number; y: number; w: number; h: number } | undefined {
  const p = report.click_point;
  const dims = isObj(report.dimensions) ? report.dimensions : {};
  const w = finite(dims.width), h = finite(dims.height);
  if (!isObj(p) || p.inside_screenshot !== true || !w || !h) return undefined;
  const x = finite(p.x), y = finite(p.y), sx = finite(p.screenshot_x), sy = finite(p.screenshot_y);
  if (x === undefined || y === undefined || sx === undefined || sy === undefined) return undefined;
  return { x: x - sx, y: y - sy, w, h };
}

/** Half a CSS px value, as a frame's pixels: the frames are the viewport at half resolution. */
const half = (v: number) => Math.round(v * 5) / 10;

export function renderTagFilmStrip(report: J, base: string): string {
  const box = creativeBox(report);
  const frames = objs(report.film_strip)
    .map((f) => {
      const t = finite(f.time);
      const alt = `Frame at ${ms(t ?? 0)} after the render started`;
      const url = isObj(f.image) ? f.image.url : undefined;
      // Cropped to the creative's box where it is known (an SVG viewBox over the whole frame: no style attribute, and
      // the image keeps its own size); else the whole viewport.
      const img = box && isArtifactUrl(url, base)
        ? `<svg class="frame" viewBox="${half(box.x)} ${half(box.y)} ${half(box.w)} ${half(box.h)}" width="${half(box.w)}" height="${half(box.h)}" role="img" aria-label="${esc(alt)}"><image href="${safeUrl(url)}" x="0" y="0"/></svg>`
        : artifactImage(f.image, alt, base, { className: "frame" });
      return { t, img };
    })
    .filter((f) => f.img && f.t !== undefined);
  if (frames.length === 0) return "";
  const tiles = frames.map((f) => `<figure class="frame-fig">${f.img}<figcaption>${esc(ms(f.t!))}</figcaption></figure>`).join("");
  const what = box ? "each cropped to the creative's box" : "each the whole viewport";
  const note = frames.length === 1
    ? `One frame (${what}): the creative did not change after it first drew.`
    : `${frames.length} frames picked evenly across the animation, left to right in time, ${what}; the time is from the start of the render.`;
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
