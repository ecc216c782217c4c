/**
 * The media file fields that can fail to be measured while the rest of the file is measured, as their paths below
 * the media file in the JSON report (MediaProbe.not_measured). A field listed there carries a placeholder in the
 * proto (0, false, unset); the edge leaves it out of the JSON and the spec-set tests report it as not evaluated, so
 * no report shows a value nobody measured.
 */
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
} as const;

export type NotMeasuredField = (typeof FIELD)[keyof typeof FIELD];
