import type { MediaAccessibility, MediaTrack } from "@cva/contracts";
import { arr, bool, int, num, obj, orEmpty, str } from "./schema.ts";

// v3 (scanVideo and each VAST media file): captions and audio description carried in the media file, and
// photosensitivity from every frame (issue 25 §1, §4): for a raw video file always; for a VAST media file on the one
// rendition per Linear creative that is analysed (its smallest decodable progressive video), whose section has the
// same flash fields as scanVideo's; the creative's other renditions have none (flashes_not_judged_reason names where
// the verdict is).

const NOT_MEASURED = "; absent when not measured (then listed in not_measured)";

const trackSchema = obj({
  stream_index: int("the stream's index in the file (ffprobe)"),
  codec: str("the stream's codec (mov_text, webvtt, subrip, ass, eia_608, dvb_subtitle, …; an audio codec for audio description), or cea_608_708 for captions carried in the video's pictures"),
  language: str("language as tagged (ISO 639-2, e.g. eng); empty when untagged"),
  title: str("the stream's title tag; empty when none"),
  declared_by: str("subtitle_stream, disposition_hearing_impaired, video_closed_captions (CEA-608/708 in the pictures), disposition_descriptions, disposition_visual_impaired or title"),
});

const captionFields = {
  captions: bool(
    "a caption track is carried in the file: a subtitle stream not marked forced-only (mov_text, WebVTT, SubRip, ASS, an EIA-608 track, DVB/DVD/PGS subtitles) " +
      `or CEA-608/708 closed captions in the video's pictures (read from its first 8 decoded frames)${NOT_MEASURED}`,
  ),
  caption_tracks: arr(trackSchema, "each caption track found"),
  audio_description: bool("an audio stream is declared as audio description: disposition descriptions or visual_impaired, or a title naming it (nothing is listened to)"),
  audio_description_tracks: arr(trackSchema, "each audio-description stream found"),
  flashes_judged: bool("false when flash_risk false would prove nothing: not every second was analysed, or (VAST media files) this rendition was not the one analysed"),
  flashes_not_judged_reason: str("why flashes_judged is false; empty otherwise"),
};

const flashFields = {
  max_flashes_per_second: int(`most general flashes (pairs of opposing relative-luminance transitions of at least 0.1 with the darker state below 0.8, together over more than a quarter of a 10-degree visual field) in any one second of the video${NOT_MEASURED}`),
  max_red_flashes_per_second: int(`most red flashes (pairs of opposing transitions to or from a saturated red) in any one second${NOT_MEASURED}`),
  red_flash: bool(`more than three red flashes in some second${NOT_MEASURED}`),
  flash_risk: bool(`WCAG 2.3.1 fails: more than three general or red flashes in some second${NOT_MEASURED}`),
  worst_second_ms: int(`start of the second with the most flashes, milliseconds after the first frame; -1 when no flash was seen${NOT_MEASURED}`),
  frames_analyzed: int(`frames analysed${NOT_MEASURED}`),
  flash_analysis_fps: num(`frames a second analysed: the video's own rate, at most 60${NOT_MEASURED}`),
  flash_area_threshold_px: int(`the flash area threshold in the video's display pixels squared: a quarter of a 10-degree field, taken as a third of the picture's width and height (WCAG's 341x256 px at 1024x768)${NOT_MEASURED}`),
};

/** scanVideo: captions, audio description and flashes. */
export const videoAccessibilitySchema = orEmpty(
  obj({ summary: str("one line in plain language"), ...captionFields, ...flashFields }, { optional: ["captions", ...Object.keys(flashFields)] }),
  "captions, audio description and photosensitivity of the video (WCAG 2.2 SC 1.2.2, 1.2.5, 2.3.1); empty for a report stored before they were measured",
);

/**
 * A VAST media file: captions and audio description; the flash fields on the rendition analysed for its creative
 * (the same meaning and units as scanVideo's), absent on the others.
 */
export const mediaFileAccessibilitySchema = orEmpty(
  obj({ summary: str("one line in plain language"), ...captionFields, ...flashFields }, { optional: ["captions", ...Object.keys(flashFields)] }),
  "captions and audio description carried in the media file (WCAG 2.2 SC 1.2.2, 1.2.5), and photosensitivity (WCAG 2.2 SC 2.3.1) from every frame " +
    "of the one rendition per Linear creative that is analysed, its smallest decodable progressive video (a flash is the same on every rendition): " +
    "the flash fields are present on that media file only, absent on the creative's other renditions (flashes_judged false, flashes_not_judged_reason says so); " +
    "empty when the file was not probed",
);

/**
 * Whether a VAST media file's section carries the flash fields: the rendition whose flashes were analysed (frames
 * analysed), or asked for and not measured (the fields are then listed in not_measured and left out).
 */
export function vastMediaHasFlashes(a: MediaAccessibility | undefined, notMeasured: readonly string[]): boolean {
  return !!a && (a.framesAnalyzed > 0 || notMeasured.includes("accessibility.flash_risk"));
}

const trackView = (t: MediaTrack) => ({ stream_index: t.streamIndex, codec: t.codec, language: t.language, title: t.title, declared_by: t.declaredBy });

/** One plain-language line. `captionsMeasured` false: the caption search did not finish. */
export function mediaAccessibilitySummary(a: MediaAccessibility, opts: { flashes: boolean; captionsMeasured: boolean }): string {
  const parts: string[] = [];
  if (opts.flashes) {
    if (a.flashRisk) parts.push(`Flashes ${Math.max(a.maxFlashesPerSecond, a.maxRedFlashesPerSecond)} times a second${a.redFlash ? " (red)" : ""}: a seizure risk (fails WCAG 2.3.1)`);
    else if (!a.flashesJudged) parts.push("Flashing could not be judged");
    else parts.push("No dangerous flashing");
  }
  const langs = (ts: MediaTrack[]) => [...new Set(ts.map((t) => t.language).filter(Boolean))].join(", ");
  if (!opts.captionsMeasured) parts.push("captions could not be looked for in full");
  else if (a.captions) {
    const l = langs(a.captionTracks);
    parts.push(`captions carried in the file${l ? ` (${l})` : ""}`);
  } else parts.push("no captions in the file");
  parts.push(a.audioDescription ? "an audio description track is declared" : "no audio description declared");
  const s = parts.join("; ");
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}

/**
 * The section as JSON; `notMeasured` are the report's (media file's) paths: the caller's applyNotMeasured removes the
 * listed scalars. `flashes` false leaves the flash fields out (VAST media files).
 */
export function mediaAccessibilityView(a: MediaAccessibility | undefined, opts: { flashes: boolean; notMeasured: readonly string[] }) {
  if (!a) return {};
  const captionsMeasured = !opts.notMeasured.includes("accessibility.captions");
  const base = {
    summary: mediaAccessibilitySummary(a, { flashes: opts.flashes && !opts.notMeasured.includes("accessibility.flash_risk"), captionsMeasured }),
    captions: a.captions,
    caption_tracks: a.captionTracks.map(trackView),
    audio_description: a.audioDescription,
    audio_description_tracks: a.audioDescriptionTracks.map(trackView),
    flashes_judged: a.flashesJudged,
    flashes_not_judged_reason: a.flashesNotJudgedReason,
  };
  if (!opts.flashes) return base;
  return {
    ...base,
    max_flashes_per_second: a.maxFlashesPerSecond,
    max_red_flashes_per_second: a.maxRedFlashesPerSecond,
    red_flash: a.redFlash,
    flash_risk: a.flashRisk,
    worst_second_ms: Number(a.worstSecondMs),
    frames_analyzed: a.framesAnalyzed,
    flash_analysis_fps: a.flashAnalysisFps,
    flash_area_threshold_px: Number(a.flashAreaThresholdPx),
  };
}
