import { ms } from "../format.ts";
import { esc, finite, flag, isObj, kvTable, objs, table, text, type J } from "../html.ts";

// A media file's accessibility (issue 25 §1, §4): the one-line summary, captions and audio description carried in the
// file with their tracks, and the flash figures: a raw video file's, and the VAST media file analysed for its creative
// (the smallest rendition); the creative's other renditions have none: "Flashes analysed: no, …" says where they are.

/** Whether `a` is a media file's section (it has track lists), not a tag's. */
export const isMediaAccessibility = (a: unknown): boolean => isObj(a) && Array.isArray(a.caption_tracks);

/**
 * The three-flashes verdict: fails, passes — or, when the flashes could not be judged (frames missed), neither: no
 * flash found in frames that may be incomplete is no pass.
 */
export function seizureRisk(a: J): string {
  if (a.flash_risk === undefined) return "";
  if (a.flash_risk) return `<span class="flag bad">fails</span>`;
  if (a.flashes_judged === false) return `<span class="flag">not judged</span>`;
  return `<span class="flag good">passes</span>`;
}

export function renderMediaAccessibility(a: J, opts: { heading?: string } = {}): string {
  if (!isObj(a) || !isMediaAccessibility(a)) return "";
  const worst = finite(a.worst_second_ms);
  const rows: Array<[string, string]> = [
    ["Captions in the file", a.captions === undefined ? "not measured" : flag(a.captions, true)],
    ["Audio description declared", a.audio_description === undefined ? "" : flag(a.audio_description, true)],
    ["Flashes per second (most)", a.max_flashes_per_second === undefined ? "" : esc(a.max_flashes_per_second)],
    ["Red flashes per second (most)", a.max_red_flashes_per_second === undefined ? "" : esc(a.max_red_flashes_per_second)],
    ["Seizure risk (WCAG 2.3.1)", seizureRisk(a)],
    ["Worst second", worst !== undefined && worst >= 0 ? esc(`from ${ms(worst)} after the first frame`) : ""],
    ["Flashes analysed", a.flashes_judged === false ? esc(`no: ${text(a.flashes_not_judged_reason)}`) : a.flashes_judged ? "yes" : ""],
    ["Frames analysed", a.frames_analyzed === undefined ? "" : esc(`${text(a.frames_analyzed)}${a.flash_analysis_fps ? ` (${text(a.flash_analysis_fps)} a second)` : ""}`)],
  ];
  const track = (t: J) => [esc(t.stream_index), `<code>${esc(t.codec)}</code>`, esc(t.language || "—"), esc(t.title || "—"), esc(text(t.declared_by).replaceAll("_", " "))];
  const tracks = [...objs(a.caption_tracks).map((t) => ["caption", ...track(t)]), ...objs(a.audio_description_tracks).map((t) => ["audio description", ...track(t)])];
  const heading = opts.heading ? `<h4>${esc(opts.heading)}</h4>` : "";
  return `${heading}<p class="summary"><strong>${esc(a.summary)}</strong></p>${kvTable(rows.filter(([, v]) => v !== ""))}${
    tracks.length ? table([{ head: "Track" }, { head: "Stream", kind: "num" }, { head: "Codec" }, { head: "Language" }, { head: "Title" }, { head: "Declared by" }], tracks, { caption: "Accessibility tracks" }) : ""
  }`;
}
