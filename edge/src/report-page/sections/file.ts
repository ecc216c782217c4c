import { byKey, label, num } from "../format.ts";
import { artifactImage, esc, finite, flag, isObj, kvTable, obj, safeUrl, swatch, text, type J } from "../html.ts";
import { genericValue } from "./generic.ts";
import { mediaFileCard } from "./media.ts";

// The raw-file reports (scanVideo, scanImage, scanAudio): the file as received, the media card of a video or audio
// file (poster, film strip, waveform, loudness, file info, silence and black at the ends, clipping), and an image's
// facts, picture and metadata — with the GPS position it leaks, if any, said first.

/** The file as received: name, digest, what it is and what the client said it is. */
export function creativeFileTable(report: J): string {
  const f = obj(report.file);
  if (Object.keys(f).length === 0) return "";
  const url = text(f.url);
  return kvTable([
    ["Name", esc(f.name)],
    ["SHA-256", f.sha256 ? `<code>${esc(f.sha256)}</code>` : ""],
    ["Type (from its bytes)", esc(f.mime_type)],
    ["Type declared", f.declared_mime_type && f.declared_mime_type !== f.mime_type ? esc(f.declared_mime_type) : ""],
    ["Size", typeof f.size === "number" ? esc(byKey("size", f.size)) : ""],
    ["Fetched from", url ? `<a class="url" href="${safeUrl(url)}" rel="noopener noreferrer nofollow">${esc(url)}</a>` : ""],
  ].filter(([, v]) => v !== "") as Array<[string, string]>);
}

const renamed = (o: unknown, from: Record<string, string>): J => {
  if (!isObj(o)) return {};
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [from[k] ?? k, v]));
};

/**
 * A video or audio file's media card. Its JSON gives durations in ms under names without a unit suffix
 * (container.duration, keyframe_interval, frozen_frames, the top-level duration); the card formats by name, so they are
 * shown under their _ms names here (the VAST media file's container has no duration, and its video.duration is s).
 */
export function fileMediaCard(report: J, base: string): string {
  const fi = obj(report.file_info);
  const m: J = {
    ...report,
    duration_ms: report.duration ?? report.duration_ms,
    file_info: {
      ...fi,
      container: renamed(fi.container, { duration: "duration_ms" }),
      ...(isObj(fi.video) ? { video: renamed(fi.video, { keyframe_interval: "keyframe_interval_ms" }) } : {}),
      content: renamed(fi.content, { frozen_frames: "frozen_frames_ms" }),
    },
  };
  delete m.duration;
  return mediaFileCard(m, "The file", base);
}

/** The image report's own fields (issue 19 §3), so "Other fields" does not list them. */
export const IMAGE_KEYS = [
  "format", "mime_type", "file_size", "width", "height", "aspect_ratio", "bit_depth", "has_alpha", "color_space", "icc_profile", "animated",
  "frame_count", "loop_count", "animation_duration", "has_border", "optimized", "potential_saving_bytes", "iab_size", "metadata", "file",
];

export function imageFacts(report: J, base: string): string {
  const shot = obj(report.screenshot);
  const w = finite(report.width);
  const picture = artifactImage(shot, "The image as displayed (first frame)", base, { width: w !== undefined && w <= 1200 ? w : undefined });
  const plain = (k: string): [string, string] => [label(k), report[k] === undefined ? "" : genericValue(k, report[k], base) || "—"];
  const loops = finite(report.loop_count);
  const anim = finite(report.animation_duration);
  const rows: Array<[string, string]> = [
    ["Format", esc([text(report.format).toUpperCase(), text(report.mime_type)].filter(Boolean).join(" · "))],
    plain("file_size"),
    plain("width"),
    plain("height"),
    plain("aspect_ratio"),
    ["IAB size", report.iab_size === undefined ? "" : report.iab_size ? esc(report.iab_size) : "not a standard size"],
    plain("bit_depth"),
    plain("has_alpha"),
    plain("color_space"),
    ["ICC profile", report.icc_profile ? esc(report.icc_profile) : report.icc_profile === "" ? "none embedded" : ""],
    plain("animated"),
    ...(report.animated
      ? ([
          plain("frame_count"),
          ["Plays", loops === undefined ? "" : loops === 0 ? "forever" : esc(num(loops))],
          ["Animation length", anim === undefined ? "" : anim < 0 ? "forever" : esc(byKey("animation_duration", anim))],
        ] as Array<[string, string]>)
      : []),
    plain("has_border"),
    [
      "Optimized",
      report.optimized === undefined
        ? ""
        : report.optimized
          ? flag(true, true)
          : `${flag(false, true)} a lossless re-encode saves ${esc(byKey("potential_saving_bytes", report.potential_saving_bytes ?? 0))}`,
    ],
  ];
  const facts = kvTable(rows.filter(([, v]) => v !== ""));
  const color = swatch(shot.color);
  return picture
    ? `<div class="screens"><figure class="shot-fig">${picture}<figcaption>The image${color ? ` · dominant colour ${color}` : ""}</figcaption></figure></div>${facts}`
    : facts;
}

/** EXIF left in the file, the GPS position first: where the photo was taken is a privacy leak. */
export function imageMetadata(report: J): string {
  const md = obj(report.metadata);
  const gps = obj(md.gps);
  const exif = Object.entries(obj(md.exif));
  const warning = gps.present
    ? `<p class="problem">A GPS position is left in the file (${esc(String(Number(gps.latitude)))}, ${esc(String(Number(gps.longitude)))}): anyone who downloads the ad can read where the picture was taken. Strip the metadata before it ships.</p>`
    : "";
  const tags = exif.length ? kvTable(exif.map(([k, v]): [string, string] => [k, esc(text(v)) || "—"]), "EXIF tags") : "<p>No EXIF tags.</p>";
  if (!warning && exif.length === 0 && Object.keys(md).length === 0) return "";
  return `${warning}${tags}`;
}
