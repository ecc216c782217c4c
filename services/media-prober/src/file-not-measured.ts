import { FLASH_FIELD } from "./not-measured.ts";
/**
 * The fields of a raw video/audio file report (VideoFileReport, AudioFileReport) that can fail to be measured while the
 * rest is, as JSON paths below the report (their not_measured). A listed field carries a placeholder in the proto; the
 * views leave it out. Names are the JSON names of issue 19 (keyframe_interval, frozen_frames), otherwise the proto's.
 */
export const FILE_FIELD = {
  videoBitRate: "file_info.video.bit_rate",
  audioBitRate: "file_info.audio.bit_rate",
  frameRateMode: "file_info.video.frame_rate_mode",
  scanType: "file_info.video.scan_type",
  keyframeInterval: "file_info.video.keyframe_interval",
  letterboxing: "file_info.video.letterboxing",
  pillarboxing: "file_info.video.pillarboxing",
  bars: "file_info.video.bars",
  loudness: "file_info.audio.loudness",
  clipping: "file_info.audio.clipping",
  leadingBlack: "file_info.content.leading_black_ms",
  trailingBlack: "file_info.content.trailing_black_ms",
  frozenFrames: "file_info.content.frozen_frames",
  leadingSilence: "file_info.content.leading_silence_ms",
  trailingSilence: "file_info.content.trailing_silence_ms",
  poster: "poster",
  filmStrip: "film_strip",
  screenshot: "screenshot",
  audioWave: "audio_wave",
  captions: "accessibility.captions",
  ...FLASH_FIELD,
} as const;

export type FileField = (typeof FILE_FIELD)[keyof typeof FILE_FIELD];
