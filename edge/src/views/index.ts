import fastJson from "fast-json-stringify";
import type { AudioFileReport, ImageFileReport, TagReport, VastReport, VideoFileReport, ZipReport } from "@cva/contracts";
import type { ReportKind } from "../scan/types.ts";
import { audioV3Schema, audioV3View } from "./audio-v3.ts";
import { imageV3Schema, imageV3View } from "./image-v3.ts";
import { videoV3Schema, videoV3View } from "./media-file-v3.ts";
import type { JsonSchema } from "./schema.ts";
import { tagV2Schema, tagV2View } from "./tag-v2.ts";
import { tagV3Schema, tagV3View } from "./tag-v3.ts";
import { vastV3Schema, vastV3View } from "./vast-v3.ts";
import { zipV2Schema, zipV2View } from "./zip-v2.ts";
import { zipV3Schema, zipV3View } from "./zip-v3.ts";

export {
  audioV3Schema, audioV3View, imageV3Schema, imageV3View, tagV2Schema, tagV2View, tagV3Schema, tagV3View, vastV3Schema, vastV3View,
  videoV3Schema, videoV3View, zipV2Schema, zipV2View, zipV3Schema, zipV3View,
};

/** The raw-file reports' kinds (scan/types.ts FileReportKind once the endpoints land; a union here keeps both apart). */
export type FileViewKind = "video_v3" | "image_v3" | "audio_v3";
type ViewKind = ReportKind | FileViewKind;

export const VIEW_SCHEMAS: Record<ViewKind, JsonSchema> = {
  tag_v3: tagV3Schema,
  tag_v2: tagV2Schema,
  zip_v2: zipV2Schema,
  zip_v3: zipV3Schema,
  vast_v3: vastV3Schema,
  video_v3: videoV3Schema,
  image_v3: imageV3Schema,
  audio_v3: audioV3Schema,
};

// One compiled serializer per view. The report is serialized once: the same bytes are returned to the client and
// stored, so GET /v3/reports/{job_id} returns the report exactly as first returned.
const serializers = Object.fromEntries(
  Object.entries(VIEW_SCHEMAS).map(([k, schema]) => [k, fastJson(schema as unknown as Parameters<typeof fastJson>[0])]),
) as Record<ViewKind, (doc: unknown) => string>;

export function renderTagV3(r: TagReport): string {
  return serializers.tag_v3(tagV3View(r));
}
export function renderTagV2(r: TagReport): string {
  return serializers.tag_v2(tagV2View(r));
}
export function renderZipV2(r: ZipReport): string {
  return serializers.zip_v2(zipV2View(r));
}
export function renderZipV3(r: ZipReport): string {
  return serializers.zip_v3(zipV3View(r));
}
export function renderVastV3(r: VastReport): string {
  return serializers.vast_v3(vastV3View(r));
}
export function renderVideoV3(r: VideoFileReport): string {
  return serializers.video_v3(videoV3View(r));
}
export function renderImageV3(r: ImageFileReport): string {
  return serializers.image_v3(imageV3View(r));
}
export function renderAudioV3(r: AudioFileReport): string {
  return serializers.audio_v3(audioV3View(r));
}
