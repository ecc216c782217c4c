import type { ImageFileReport } from "@cva/contracts";
import { applyNotMeasured } from "./not-measured.ts";
import {
  colorImageSchema, colorImageView, creativeFileSchema, creativeFileView, errorSchema, fileScanResultsSchema, fileScanResultsView,
  notMeasuredSchema,
} from "./file-common.ts";
import { bool, int, map, metaSchema, metaView, num, obj, str } from "./shared.ts";

// POST /v3/scanImage's report (issue 19 §3). The prober lists not-measured fields by proto name; the one whose JSON
// name differs (animation_duration_ms → animation_duration) is renamed here, so not_measured names JSON paths.
const JSON_PATH: Readonly<Record<string, string>> = { animation_duration_ms: "animation_duration" };
const NOT_MEASURED = "; absent when not measured (then listed in not_measured)";

export const imageV3Schema = obj(
  {
    job_id: str("the scan's id (GET /v3/reports/{job_id})"),
    name: str("copied from the request"),
    meta: metaSchema,
    scan_results: fileScanResultsSchema,
    file: creativeFileSchema,
    format: str("png, jpeg, gif, webp, avif or svg: what the bytes are, not the name or declared type"),
    mime_type: str("image/png, image/jpeg, image/gif, image/webp, image/avif or image/svg+xml, from the bytes"),
    file_size: int("bytes"),
    width: int(`pixels as displayed (EXIF orientation applied; SVG: its intrinsic size)${NOT_MEASURED}`),
    height: int(`pixels as displayed${NOT_MEASURED}`),
    aspect_ratio: str(`reduced W:H, snapped to a common ratio within 1 % (300x250 is 6:5)${NOT_MEASURED}`),
    bit_depth: int(`bits per channel as stored (8, 16; 1/2/4 for palette and gray PNGs; a GIF's palette-index bits)${NOT_MEASURED}`),
    has_alpha: bool("the image has an alpha channel"),
    color_space: str("srgb, rgb, cmyk, gray, p3, …: the decoder's interpretation of the pixels (a CMYK image shows wrongly in some browsers)"),
    icc_profile: str("the embedded ICC profile's description (e.g. sRGB IEC61966-2.1, Display P3); empty when none is embedded"),
    animated: bool("more than one frame (GIF, WebP, APNG, AVIF sequence)"),
    frame_count: int(`frames; 1 for a still image${NOT_MEASURED}`),
    loop_count: int(`plays as stored (GIF NETSCAPE2.0, WebP ANIM, APNG num_plays): 0 = loops forever; 1 for a still or an animation without a loop count${NOT_MEASURED}`),
    animation_duration: int(
      `milliseconds the animation plays under the browsers' rules (the tag scanner's: a frame delay of 10 ms or less lasts 100 ms; one play × plays); -1 when it loops forever; 0 for a still${NOT_MEASURED}`,
    ),
    has_border: bool("a border around the image (the tag scanner's detector, on the first frame as displayed)"),
    optimized: bool(`false when a lossless re-encode saves more than 5 % of the file${NOT_MEASURED}`),
    potential_saving_bytes: int(`bytes a lossless re-encode saves; 0 when none${NOT_MEASURED}`),
    iab_size: str(`the IAB standard ad size the image matches exactly, e.g. 300x250; empty when none${NOT_MEASURED}`),
    metadata: obj(
      {
        exif: map(str(), "EXIF tags by name (Make, Model, DateTimeOriginal, Software, …), values as text; empty when none"),
        gps: obj(
          {
            present: bool("a GPS position is left in the file: a privacy leak (where the photo was taken), strip it before it ships"),
            latitude: num("decimal degrees, WGS 84, south negative; 0 when not present"),
            longitude: num("decimal degrees, WGS 84, west negative; 0 when not present"),
          },
        ),
      },
      { description: "metadata left in the file: what a trafficker should strip before it ships" },
    ),
    screenshot: colorImageSchema,
    not_measured: notMeasuredSchema("image"),
    error: errorSchema("an image"),
  },
  {
    description: "Image file report, v3 (POST /v3/scanImage)",
    optional: ["width", "height", "aspect_ratio", "bit_depth", "frame_count", "loop_count", "animation_duration", "optimized", "potential_saving_bytes", "iab_size"],
  },
);

export function imageV3View(r: ImageFileReport) {
  const notMeasured = r.notMeasured.map((p) => JSON_PATH[p] ?? p);
  const doc = {
    job_id: r.jobId,
    name: r.name,
    meta: metaView(r.meta, "image", "v3"),
    scan_results: fileScanResultsView(r.scanResults),
    file: creativeFileView(r.file),
    format: r.format,
    mime_type: r.mimeType,
    file_size: Number(r.fileSize),
    width: r.width,
    height: r.height,
    aspect_ratio: r.aspectRatio,
    bit_depth: r.bitDepth,
    has_alpha: r.hasAlpha,
    color_space: r.colorSpace,
    icc_profile: r.iccProfile,
    animated: r.animated,
    frame_count: r.frameCount,
    loop_count: r.loopCount,
    animation_duration: Number(r.animationDurationMs),
    has_border: r.hasBorder,
    optimized: r.optimized,
    potential_saving_bytes: Number(r.potentialSavingBytes),
    iab_size: r.iabSize,
    metadata: {
      exif: Object.fromEntries(Object.entries(r.metadata?.exif ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      gps: { present: r.metadata?.gps?.present ?? false, latitude: r.metadata?.gps?.latitude ?? 0, longitude: r.metadata?.gps?.longitude ?? 0 },
    },
    screenshot: colorImageView(r.screenshot),
    not_measured: notMeasured,
    error: r.analysisError,
  };
  applyNotMeasured(doc, notMeasured);
  return doc;
}
