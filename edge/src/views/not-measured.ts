// Every documented key is present in every report, because typed clients break on a missing key; and a value nobody
// measured must never look measured. The two rules meet here:
//  - an OBJECT key is always present: an image with no picture is EMPTY_IMAGE ({bytes: 0, mime_type: "", url: ""}),
//    an info object with nothing in it is {} (file_info.audio of a silent video, file_info.* of a file never probed);
//  - a SCALAR that was not measured is left out, and its path is listed in `not_measured`
//    (a fake 0, false or "" would read as a measurement);
//  - an object path listed in `not_measured` (poster after an ffmpeg time-out, file_info.audio.loudness) stays as its
//    empty form: the list says it was not measured, the empty object keeps the document's shape.
// Scanners report placeholders (proto 0, false, unset) plus the path in not_measured; the views apply the rule.

export const EMPTY_IMAGE = Object.freeze({ bytes: 0, mime_type: "", url: "" });

/** Paths below a media file that may be listed in its not_measured, and what the JSON then holds there. */
export const MEDIA_NOT_MEASURED_FIELDS = {
  http_code: "absent",
  file_size: "absent",
  download_speed: "absent",
  file_info: "empty",
  "file_info.audio.loudness": "empty",
  "file_info.audio.bit_rate": "absent",
  "file_info.video.letterboxing": "absent",
  "file_info.video.bit_rate": "absent",
  "accessibility.captions": "absent",
  poster: "empty",
  film_strip: "empty",
  audio_wave: "empty",
} as const satisfies Record<string, "absent" | "empty">;

/** Paths of the VAST report itself that may be listed in its not_measured (all scalars). */
export const VAST_NOT_MEASURED_FIELDS = { cors: "absent", "xml.load_time": "absent" } as const;

/** file_info with nothing measured: its three info objects, each empty. */
export const emptyFileInfo = () => ({ audio: {}, container: {}, video: {} });

function emptyOf(path: string, value: object): object {
  if (path === "file_info") return emptyFileInfo();
  return "url" in value && "mime_type" in value ? { ...EMPTY_IMAGE } : {};
}

/** Applies the rule above to `doc` (a plain JSON object) for each listed path; unknown paths are ignored. */
export function applyNotMeasured(doc: Record<string, unknown>, paths: readonly string[]): void {
  for (const path of paths) {
    const keys = path.split(".");
    let node: unknown = doc;
    for (const k of keys.slice(0, -1)) node = node && typeof node === "object" ? (node as Record<string, unknown>)[k] : undefined;
    if (!node || typeof node !== "object") continue;
    const parent = node as Record<string, unknown>;
    const last = keys[keys.length - 1]!;
    const value = parent[last];
    if (value && typeof value === "object") parent[last] = emptyOf(path, value);
    else delete parent[last];
  }
}
