import { ms } from "../format.ts";
import { artifactImage, esc, finite, flag, isArtifactUrl, kvTable, obj, safeUrl, swatch, text, type J } from "../html.ts";
import { clickMarker } from "./film-strip.ts";
import type { TestRow } from "./tests.ts";

// What the creative looked like: its screenshot, the landing page its click opened, and the animation's timeline.

export function renderScreens(report: J, base: string): string {
  const shot = obj(report.screenshot);
  const dims = obj(report.dimensions);
  const width = finite(dims.width);
  const high = artifactImage(shot.highres, "Screenshot of the creative as rendered", base, { width });
  // A report with only a thumbnail (or a media report's first frame) still shows something.
  const img = high || artifactImage(shot.thumbnail, "Thumbnail of the creative", base);
  const lp = obj(report.landing_page);
  const figures: string[] = [];
  if (img) {
    const caption = [dims.text ? `${esc(dims.text)}\u00a0px` : "", swatch(obj(shot.highres).color) ? `dominant colour ${swatch(obj(shot.highres).color)}` : ""]
      .filter(Boolean)
      .join(" · ");
    const marker = high ? clickMarker(report) : "";
    const clicked = marker ? " · the ring is where the scanner clicked" : "";
    figures.push(`<figure class="shot-fig">${marker ? `<div class="shot-wrap">${img}${marker}</div>` : img}<figcaption>The creative${caption ? ` · ${caption}` : ""}${clicked}</figcaption></figure>`);
  }
  if (report.landing_page !== undefined) figures.push(landingPage(lp, base));
  if (figures.length === 0) return "";
  return `<div class="screens">${figures.join("")}</div>`;
}

const HOW_OPENED: Record<string, string> = { new_tab: "in a new tab", same_tab: "in the same tab", none: "nothing opened" };

function landingPage(lp: J, base: string): string {
  const img = artifactImage(lp.screenshot, "Screenshot of the landing page", base, { className: "shot lp" });
  const url = text(lp.url);
  const rows: Array<[string, string]> = [
    ["Opened", esc(HOW_OPENED[text(lp.tab)] ?? text(lp.tab))],
    ["Page works", lp.working === undefined ? "" : flag(lp.working, true)],
    ["Title", esc(lp.title)],
    ["URL", url ? `<a class="url" href="${safeUrl(url)}" rel="noopener noreferrer nofollow">${esc(url)}</a>` : ""],
  ];
  return `<figure class="shot-fig">${img || `<p class="placeholder">No landing page screenshot: ${esc(lp.tab === "none" ? "the click opened nothing" : "none was taken")}.</p>`}<figcaption>The landing page (click-through)${kvTable(rows)}</figcaption></figure>`;
}

/**
 * The animation as a timeline: first paint (time_to_visual_start, from the start of the tag's load), the motion
 * (animation_duration, from first paint until the last pixel change), and the guideline's limit when a test has one.
 * Drawn in SVG: positions as attributes, since the CSP allows no style attributes.
 */
export function renderTimeline(report: J, rows: TestRow[]): string {
  const paint = finite(report.time_to_visual_start);
  const anim = finite(report.animation_duration);
  if (paint === undefined && anim === undefined) return "";
  const items: Array<[string, string]> = [];
  if (paint === undefined || paint < 0) {
    items.push(["First paint", "nothing was painted"]);
    return `<div class="timeline">${kvTable(items)}</div>`;
  }
  items.push(["First paint", `${esc(ms(paint))} after the tag started loading`]);
  const limitRow = rows.find((r) => r.id === "animation_duration");
  const limitMs = limitRow?.limit === undefined ? undefined : limitRow.unit === "s" ? limitRow.limit * 1000 : limitRow.unit === "ms" ? limitRow.limit : undefined;
  let end: number | undefined;
  if (anim === undefined) items.push(["Motion", "not measured"]);
  else if (anim < 0) items.push(["Motion", "still moving when the scan ended (endless, or longer than the scan waits)"]);
  else if (anim === 0) items.push(["Motion", "none: the first paint is the final frame"]);
  else {
    end = paint + anim;
    items.push(["Motion", `${esc(ms(anim))}, from first paint until the last pixel changed`], ["End of motion", `${esc(ms(end))} after the tag started loading`]);
  }
  if (limitMs !== undefined) items.push(["Guideline", `motion must end within ${esc(ms(limitMs))} of first paint`]);
  const span = Math.max(paint, end ?? 0, limitMs !== undefined ? paint + limitMs : 0, anim !== undefined && anim < 0 ? paint * 2 + 1000 : 0, 1) * 1.05;
  const x = (t: number) => Math.round((t / span) * 1000);
  const motion =
    anim === undefined ? "" : anim < 0
      ? `<rect class="motion endless" x="${x(paint)}" y="4" width="${1000 - x(paint)}" height="16"/>`
      : anim > 0 ? `<rect class="motion" x="${x(paint)}" y="4" width="${Math.max(2, x(end!) - x(paint))}" height="16"/>` : "";
  const svg = `<svg class="tl" viewBox="0 0 1000 24" preserveAspectRatio="none" role="img" aria-label="Timeline: first paint at ${esc(ms(paint))}${end !== undefined ? `, motion ends at ${esc(ms(end))}` : ""}">
<rect class="loading" x="0" y="8" width="${x(paint)}" height="8"/>${motion}
<rect class="mark" x="${Math.max(0, x(paint) - 1)}" y="0" width="3" height="24"/>
${end !== undefined ? `<rect class="mark end" x="${Math.min(997, x(end))}" y="0" width="3" height="24"/>` : ""}
${limitMs !== undefined ? `<rect class="limit" x="${Math.min(998, x(paint + limitMs))}" y="0" width="2" height="24"/>` : ""}
</svg>`;
  return `<div class="timeline">${svg}<div class="axis"><span>0</span><span>${esc(ms(span))}</span></div>${kvTable(items)}</div>`;
}

/**
 * A film strip image (keyframes side by side), each tile's time under it when the report gives them (film_strip_times:
 * the tiles are equal in width, so the labels share the width equally), else the time span it covers.
 */
export function filmStrip(strip: unknown, base: string, durationSeconds: number | undefined, times?: unknown): string {
  const url = obj(strip).url;
  if (!isArtifactUrl(url, base)) return "";
  const img = artifactImage(strip, "Film strip: keyframes of the video, left to right in time", base, { className: "strip" });
  const at = (Array.isArray(times) ? times : []).map(finite).filter((t): t is number => t !== undefined);
  if (at.length > 0) {
    const labels = `<ol class="strip-times">${at.map((t) => `<li>${esc(ms(t))}</li>`).join("")}</ol>`;
    return `<figure class="strip-fig">${img}${labels}<figcaption>Film strip: ${at.length} keyframes spread over the video, each with its time from the start.</figcaption></figure>`;
  }
  const span = durationSeconds !== undefined && durationSeconds > 0
    ? `<div class="axis"><span>0 s</span><span>${esc(ms(durationSeconds * 1000))}</span></div>`
    : "";
  return `<figure class="strip-fig">${img}${span}<figcaption>Film strip: up to 10 frames spread over the video, left to right in time (the file has no keyframe index, so each tile's time is not known).</figcaption></figure>`;
}
