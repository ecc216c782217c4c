import type { VideoFileReport } from "@cva/contracts";
import { mediaAccessibilityView, videoAccessibilitySchema } from "./media-accessibility.ts";
import { applyNotMeasured } from "./not-measured.ts";
import {
  audioSchema, contentSchema, containerSchema, creativeFileSchema, creativeFileView, errorSchema, fileInfoView, fileScanResultsSchema,
  fileScanResultsView, notMeasuredSchema, videoSchema, withDependents,
} from "./file-common.ts";
import { filmStripTimesSchema, filmStripTimesView, imageSchema, imageView, posterSchema, int, metaSchema, metaView, obj, orEmpty, screenshotSchema, screenshotView, str } from "./shared.ts";

// POST /v3/scanVideo's report (issue 19 §2): the VAST media file's shape at the top level (file_info, file_size,
// film_strip, poster, audio_wave) plus what a raw file is judged on (file_info.content, the video's scan type, colour,
// HDR, keyframe interval, bars; the audio's true peak and clipping), the file as received and scan_results.

export const videoV3Schema = obj(
  {
    job_id: str("the scan's id (GET /v3/reports/{job_id})"),
    name: str("copied from the request"),
    meta: metaSchema,
    scan_results: fileScanResultsSchema,
    file: creativeFileSchema,
    file_size: int("bytes"),
    duration: int("milliseconds: the programme's duration (the container's; the video stream's when the container states none)"),
    file_info: obj(
      {
        container: orEmpty(containerSchema, "{} when nothing was measured"),
        video: orEmpty(videoSchema, "the video stream; {} when nothing was measured"),
        audio: orEmpty(audioSchema, "the audio stream; {} for a silent video"),
        content: contentSchema("video"),
      },
      { description: "always present; container, video, audio and content of the file" },
    ),
    film_strip: imageSchema,
    film_strip_times: filmStripTimesSchema,
    poster: posterSchema,
    audio_wave: imageSchema,
    screenshot: screenshotSchema,
    accessibility: videoAccessibilitySchema,
    not_measured: notMeasuredSchema("video"),
    error: errorSchema("a video"),
  },
  { description: "Video file report, v3 (POST /v3/scanVideo)" },
);

export function videoV3View(r: VideoFileReport) {
  const doc = {
    job_id: r.jobId,
    name: r.name,
    meta: metaView(r.meta, "video", "v3"),
    scan_results: fileScanResultsView(r.scanResults),
    file: creativeFileView(r.file),
    file_size: Number(r.fileSize),
    duration: Number(r.durationMs),
    file_info: fileInfoView(r.fileInfo, "video"),
    film_strip: imageView(r.filmStrip),
    film_strip_times: filmStripTimesView(r.filmStripTimesMs),
    poster: imageView(r.poster),
    audio_wave: imageView(r.audioWave),
    screenshot: screenshotView(r.screenshot),
    accessibility: mediaAccessibilityView(r.accessibility, { flashes: true, notMeasured: r.notMeasured }),
    not_measured: [...r.notMeasured],
    error: r.analysisError,
  };
  // The screenshot's two images are already empty when not taken; its path stays in the list.
  applyNotMeasured(doc, withDependents(r.notMeasured).filter((p) => p !== "screenshot"));
  return doc;
}
