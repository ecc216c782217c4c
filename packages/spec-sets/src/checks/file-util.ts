import type { AudioFileReport, AudioInfo, ImageFileReport, VideoFileReport, VideoInfo } from "@cva/contracts";
import type { Measurement } from "../types.ts";

// Helpers of the raw-file tests (video/, audio/, image/). A field the prober lists in the report's not_measured holds a
// placeholder: the test throws, so it reports "could not be evaluated" with the prober's reason, never a verdict on 0.

type FileReport = VideoFileReport | AudioFileReport | ImageFileReport;

export function requireFileMeasured(report: FileReport, path: string, what: string): void {
  if (!report.notMeasured.includes(path)) return;
  throw new Error(`${what} was not measured${report.analysisError ? `: ${report.analysisError}` : ""}`);
}

export function videoOf(report: VideoFileReport): VideoInfo {
  const v = report.fileInfo?.video;
  if (!v) throw new Error("the report has no file_info.video");
  return v;
}

/** The audio stream, or null for a video without one (its audio tests do not apply). */
export function audioOf(report: VideoFileReport | AudioFileReport, kind: "video" | "audio"): AudioInfo | null {
  const a = report.fileInfo?.audio;
  if (!a && kind === "audio") throw new Error("the report has no file_info.audio");
  return a ?? null;
}

/** Integrated loudness, LUFS; null without audio. */
export function loudnessOf(report: VideoFileReport | AudioFileReport, kind: "video" | "audio"): Measurement {
  const a = audioOf(report, kind);
  if (!a) return null;
  requireFileMeasured(report, "file_info.audio.loudness", "the loudness");
  if (!a.loudness) throw new Error("the prober measured no loudness for the audio track");
  return a.loudness.lufs;
}

/** True peak, dBTP; null without audio. */
export function truePeakOf(report: VideoFileReport | AudioFileReport, kind: "video" | "audio"): Measurement {
  const a = audioOf(report, kind);
  if (!a) return null;
  requireFileMeasured(report, "file_info.audio.loudness", "the true peak");
  if (!a.loudness) throw new Error("the prober measured no true peak for the audio track");
  return a.loudness.truePeak;
}

export function sampleRateOf(report: VideoFileReport | AudioFileReport, kind: "video" | "audio"): Measurement {
  const a = audioOf(report, kind);
  if (!a) return null;
  if (a.sampleRate <= 0) throw new Error("the audio stream states no sample rate");
  return a.sampleRate;
}

/** Silence at one end, ms; null without audio. */
export function silenceOf(report: VideoFileReport | AudioFileReport, kind: "video" | "audio", end: "leading" | "trailing"): Measurement {
  if (!audioOf(report, kind)) return null;
  requireFileMeasured(report, `file_info.content.${end}_silence_ms`, `the ${end} silence`);
  const c = report.fileInfo?.content;
  if (!c) throw new Error("the report has no file_info.content");
  return Number(end === "leading" ? c.leadingSilenceMs : c.trailingSilenceMs);
}
