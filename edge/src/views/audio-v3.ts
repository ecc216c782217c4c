import type { AudioFileReport } from "@cva/contracts";
import { fileCommonSchema, fileCommonView, fileInfoJson, freeObject } from "./file-common.ts";
import { imageSchema, imageView, int, obj } from "./shared.ts";

// POST /v3/scanAudio's report (AudioFileReport). INTERIM (s19-edge): see file-common.ts; s19-views owns this file.

export const audioV3Schema = obj(
  {
    ...fileCommonSchema,
    file_size: int("bytes"),
    duration: int("ms"),
    file_info: freeObject("container, audio and content measurements (interim form)"),
    audio_wave: imageSchema,
  },
  { description: "Audio file report, v3" },
);

export function audioV3View(r: AudioFileReport) {
  return {
    ...fileCommonView(r, "audio"),
    file_size: Number(r.fileSize),
    duration: Number(r.durationMs),
    file_info: fileInfoJson(r.fileInfo),
    audio_wave: imageView(r.audioWave),
  };
}
