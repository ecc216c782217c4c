// Values a scanner could not measure reach the views as proto placeholders (0, false, unset) plus the field's path in
// the media file's `not_measured` (e.g. "file_info.audio.loudness"). A placeholder must never be shown as a value:
// the field is left out of the JSON and the path is listed, so a client sees "not measured", never a fake 0 or false.

/** The fields that may be listed, as paths below a media file; the schema marks each optional. */
export const OMITTABLE_MEDIA_FIELDS = [
  "http_code",
  "file_size",
  "download_speed",
  "file_info.audio.loudness",
  "file_info.audio.bit_rate",
  "file_info.video.letterboxing",
  "file_info.video.bit_rate",
  "poster",
  "film_strip",
  "audio_wave",
] as const;

/** Deletes each listed path from `doc` (a plain JSON object); unknown paths are ignored. */
export function omitNotMeasured(doc: Record<string, unknown>, paths: readonly string[]): void {
  for (const path of paths) {
    const keys = path.split(".");
    let node: unknown = doc;
    for (const k of keys.slice(0, -1)) node = node && typeof node === "object" ? (node as Record<string, unknown>)[k] : undefined;
    if (node && typeof node === "object") delete (node as Record<string, unknown>)[keys[keys.length - 1]!];
  }
}
