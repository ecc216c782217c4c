import type { AudioFileReport } from "@cva/contracts";
import { applyNotMeasured } from "./not-measured.ts";
import {
  audioSchema, contentSchema, containerSchema, creativeFileSchema, creativeFileView, errorSchema, fileInfoView, fileScanResultsSchema,
  fileScanResultsView, notMeasuredSchema, withDependents,
} from "./file-common.ts";
import { imageSchema, imageView, int, metaSchema, metaView, obj, orEmpty, str } from "./shared.ts";

// POST /v3/scanAudio's report (issue 19 §4): file_info.container and .audio as the video report has them (loudness,
// true peak, clipping in audio), the silence at the ends in file_info.content (the same place as a video's), the
// duration in ms and the waveform.

export const audioV3Schema = obj(
  {
    job_id: str("the scan's id (GET /v3/reports/{job_id})"),
    name: str("copied from the request"),
    meta: metaSchema,
    scan_results: fileScanResultsSchema,
    file: creativeFileSchema,
    file_size: int("bytes"),
    duration: int("milliseconds: the programme's duration"),
    file_info: obj(
      {
        container: orEmpty(containerSchema, "{} when nothing was measured"),
        audio: orEmpty(audioSchema, "the audio stream (loudness, true peak, clipping); {} when nothing was measured"),
        content: contentSchema("audio"),
      },
      { description: "always present; container, audio and content (silence at the ends) of the file" },
    ),
    audio_wave: imageSchema,
    not_measured: notMeasuredSchema("audio file"),
    error: errorSchema("audio"),
  },
  { description: "Audio file report, v3 (POST /v3/scanAudio)" },
);

export function audioV3View(r: AudioFileReport) {
  const fi = fileInfoView(r.fileInfo, "audio");
  const doc = {
    job_id: r.jobId,
    name: r.name,
    meta: metaView(r.meta, "audio", "v3"),
    scan_results: fileScanResultsView(r.scanResults),
    file: creativeFileView(r.file),
    file_size: Number(r.fileSize),
    duration: Number(r.durationMs),
    file_info: { container: fi.container, audio: fi.audio, content: fi.content },
    audio_wave: imageView(r.audioWave),
    not_measured: [...r.notMeasured],
    error: r.analysisError,
  };
  applyNotMeasured(doc, withDependents(r.notMeasured));
  return doc;
}
