/**
 * What the image analyzer measures: the measured fields of `cva.report.v1.ImageFileReport` (proto/cva/report/v1/
 * image_report.proto, issue 19 §3), named and typed as protobuf-es generates them (int64 → bigint), so
 * `create(ImageFileReportSchema, { ...fields, jobId, name, meta, scanResults, file })` builds the report. The job's
 * own fields (job_id, name, meta, scan_results, file) are the worker's to add.
 */
export interface ImageFileFields {
  /** png, jpeg, gif, webp, avif or svg: what the bytes are, never the name or declared type. */
  format: string;
  mimeType: string;
  /** Bytes. */
  fileSize: bigint;
  /** Pixels as displayed (EXIF orientation applied; SVG: intrinsic size). */
  width: number;
  height: number;
  /** Reduced "W:H", snapped to a common ratio within 1 % (media-prober's video aspect_ratio). */
  aspectRatio: string;
  /** Bits per sample as stored: PNG IHDR depth, GIF palette-index bits, JPEG precision, AVIF bit depth, WebP 8. */
  bitDepth: number;
  hasAlpha: boolean;
  /** srgb, gray, cmyk, ... (libvips' interpretation of the pixels). */
  colorSpace: string;
  /** The embedded ICC profile's description; "" when none is embedded. */
  iccProfile: string;
  animated: boolean;
  /** 1 for a still image. */
  frameCount: number;
  /** Plays as a browser shows them, 0 = forever; 1 for a still image or an animation without a loop count. */
  loopCount: number;
  /** ms the animation plays (one play × plays, the browsers' minimum frame delay); -1 forever; 0 for a still. */
  animationDurationMs: bigint;
  hasBorder: boolean;
  /** False when a lossless re-encode saves more than 5 %. */
  optimized: boolean;
  /** Bytes the lossless re-encode saves; 0 when none. */
  potentialSavingBytes: bigint;
  /** The IAB fixed ad size the image is ("300x250"), or "". */
  iabSize: string;
  metadata: {
    exif: Record<string, string>;
    gps: { present: boolean; latitude: number; longitude: number };
  };
  /** The first frame as drawn, stored in the artifact sink (`cva.report.v1.Image`; url is the edge's to fill). */
  screenshot?: { id: string; bytes: bigint; mimeType: string; color: string; url: string };
  /** Fields not measured, as proto field paths below the report; their values above are placeholders. */
  notMeasured: string[];
  /** Why part of the measurement failed although the file is an image; "" otherwise. */
  analysisError: string;
}

/** The not_measured paths this analyzer can list. */
export const IMAGE_FIELD = {
  width: "width",
  height: "height",
  aspectRatio: "aspect_ratio",
  iabSize: "iab_size",
  bitDepth: "bit_depth",
  frameCount: "frame_count",
  loopCount: "loop_count",
  animationDuration: "animation_duration_ms",
  optimized: "optimized",
  potentialSaving: "potential_saving_bytes",
} as const;
