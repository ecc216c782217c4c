import type { VideoFileReport } from "@cva/contracts";
import { fileCommonSchema, fileCommonView, fileInfoJson, freeObject } from "./file-common.ts";
import { imageSchema, imageView, int, obj, screenshotSchema, screenshotView } from "./shared.ts";

// POST /v3/scanVideo's report (VideoFileReport). INTERIM (s19-edge): see file-common.ts; s19-views owns this file.

export const videoV3Schema = obj(
  {
    ...fileCommonSchema,
    file_size: int("bytes"),
    duration: int("ms"),
    file_info: freeObject("container, video, audio and content measurements (interim form)"),
    film_strip: imageSchema,
    poster: imageSchema,
    audio_wave: imageSchema,
    screenshot: screenshotSchema,
  },
  { description: "Video file report, v3" },
);

export function videoV3View(r: VideoFileReport) {
  return {
    ...fileCommonView(r, "video"),
    file_size: Number(r.fileSize),
    duration: Number(r.durationMs),
    file_info: fileInfoJson(r.fileInfo),
    film_strip: imageView(r.filmStrip),
    poster: imageView(r.poster),
    audio_wave: imageView(r.audioWave),
    screenshot: screenshotView(r.screenshot),
  };
}
