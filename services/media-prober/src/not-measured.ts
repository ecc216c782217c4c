/**
 * The media file fields that can fail to be measured while the rest of the file is measured, as their paths below
 * the media file in the JSON report (MediaProbe.not_measured). A field listed there carries a placeholder in the
 * proto (0, false, unset); the edge leaves it out of the JSON and the spec-set tests report it as not evaluated, so
 * no report shows a value nobody measured.
 */
/** The photosensitivity fields, the same paths on a VAST media file and a raw video file (flash-fields.ts). */
export const FLASH_FIELD = {
  maxFlashes: "accessibility.max_flashes_per_second",
  maxRedFlashes: "accessibility.max_red_flashes_per_second",
  redFlash: "accessibility.red_flash",
  flashRisk: "accessibility.flash_risk",
  worstSecond: "accessibility.worst_second_ms",
  framesAnalyzed: "accessibility.frames_analyzed",
  flashFps: "accessibility.flash_analysis_fps",
  flashArea: "accessibility.flash_area_threshold_px",
} as const;

export const FIELD = {
  httpCode: "http_code",
  fileSize: "file_size",
  downloadSpeed: "download_speed",
  loudness: "file_info.audio.loudness",
  audioBitRate: "file_info.audio.bit_rate",
  letterboxing: "file_info.video.letterboxing",
  videoBitRate: "file_info.video.bit_rate",
  poster: "poster",
  filmStrip: "film_strip",
  audioWave: "audio_wave",
  captions: "accessibility.captions",
  // Photosensitivity, on the rendition the VAST analyzer flagged (MediaInput.analyze_flashes) when its pass failed.
  ...FLASH_FIELD,
} as const;

export type NotMeasuredField = (typeof FIELD)[keyof typeof FIELD];
