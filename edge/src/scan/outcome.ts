import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  AudioFileReportSchema,
  ImageFileReportSchema,
  TagReportSchema,
  VideoFileReportSchema,
  VastReportSchema,
  ZipReportSchema,
  reportstore,
  type AudioFileReport,
  type ImageFileReport,
  type ScanResults,
  type TagReport,
  type VideoFileReport,
  type VastReport,
  type ZipReport,
} from "@cva/contracts";
import { evaluateAudioFile, evaluateImageFile, evaluateTag, evaluateVast, evaluateVideoFile, evaluateZip } from "@cva/spec-sets";
import { randomBytes } from "node:crypto";
import { renderAudioV3, renderImageV3, renderTagV2, renderTagV3, renderVastV3, renderVideoV3, renderZipV2, renderZipV3 } from "../views/index.ts";
import { fillImageUrls } from "./images.ts";
import type { ScanOutcome, ScanRequestFields } from "./types.ts";

// A worker's report made into the answer of one request: the job's id, the request's name, scan_results, URLs under
// the public base, rendered once with the request's view (those bytes are returned and stored). Also the way back: a
// stored report as the answer of an idempotent retry.
//
// scan_results are computed here and only here, for both doors (JSON and gRPC): the edge validated spec_id, so the
// spec set is known; workers return reports without them. A v3 zip's are the zip tests plus the ad tag tests on its
// render (evaluateZip), in one map; the render itself carries none. v2 reports carry none.

type AnyReport = TagReport | ZipReport | VastReport | VideoFileReport | ImageFileReport | AudioFileReport;

export function scanOutcome(req: ScanRequestFields, jobId: string, report: AnyReport, publicBase: string): ScanOutcome {
  const pageToken = randomBytes(16).toString("base64url");
  const reportUrl = `${publicBase}/r/${pageToken}`;
  fillImageUrls(report, (id) => `${publicBase}/artifacts/${encodeURIComponent(id)}`);
  switch (req.kind) {
    case "tag_v3":
    case "tag_v2": {
      const r = report as TagReport;
      r.jobId = jobId;
      r.scanResults = req.kind === "tag_v3" ? withReportUrl(evaluateTag(r, req.specId), reportUrl) : undefined;
      if (req.kind === "tag_v3") r.name = req.name;
      return { kind: req.kind, jobId, pageToken, report: r, json: req.kind === "tag_v3" ? renderTagV3(r) : renderTagV2(r) };
    }
    case "zip_v2":
    case "zip_v3": {
      const r = report as ZipReport;
      r.render ??= create(TagReportSchema);
      r.render.jobId = jobId;
      r.render.scanResults = undefined;
      r.scanResults = req.kind === "zip_v3" ? withReportUrl(evaluateZip(r, req.specId), reportUrl) : undefined;
      if (req.kind === "zip_v3") r.render.name = req.name;
      return { kind: req.kind, jobId, pageToken, report: r, json: req.kind === "zip_v3" ? renderZipV3(r) : renderZipV2(r) };
    }
    case "vast_v3": {
      const r = report as VastReport;
      r.jobId = jobId;
      r.name = req.name;
      if (r.vastUrl === "") r.vastUrl = req.url;
      r.scanResults = withReportUrl(evaluateVast(r, req.specId), reportUrl);
      return { kind: req.kind, jobId, pageToken, report: r, json: renderVastV3(r) };
    }
    // The raw files: the spec set's video / image / audio tests on the worker's measurements.
    case "video_v3": {
      const r = report as VideoFileReport;
      r.jobId = jobId;
      r.name = req.name;
      r.scanResults = withReportUrl(evaluateVideoFile(r, req.specId), reportUrl);
      return { kind: req.kind, jobId, pageToken, report: r, json: renderVideoV3(r) };
    }
    case "image_v3": {
      const r = report as ImageFileReport;
      r.jobId = jobId;
      r.name = req.name;
      r.scanResults = withReportUrl(evaluateImageFile(r, req.specId), reportUrl);
      return { kind: req.kind, jobId, pageToken, report: r, json: renderImageV3(r) };
    }
    case "audio_v3": {
      const r = report as AudioFileReport;
      r.jobId = jobId;
      r.name = req.name;
      r.scanResults = withReportUrl(evaluateAudioFile(r, req.specId), reportUrl);
      return { kind: req.kind, jobId, pageToken, report: r, json: renderAudioV3(r) };
    }
  }
}

function withReportUrl(results: ScanResults, reportUrl: string): ScanResults {
  results.reportUrl = reportUrl;
  return results;
}

// The protobuf of the report, kept with keyed scans so an idempotent retry over gRPC answers the same message.
export function reportBinaryOf(o: ScanOutcome): Uint8Array {
  switch (o.kind) {
    case "tag_v3":
    case "tag_v2":
      return toBinary(TagReportSchema, o.report);
    case "zip_v2":
    case "zip_v3":
      return toBinary(ZipReportSchema, o.report);
    case "vast_v3":
      return toBinary(VastReportSchema, o.report);
    case "video_v3":
      return toBinary(VideoFileReportSchema, o.report);
    case "image_v3":
      return toBinary(ImageFileReportSchema, o.report);
    case "audio_v3":
      return toBinary(AudioFileReportSchema, o.report);
  }
}

/** A stored report as a replayed answer; undefined when it was stored without its protobuf or for another kind. */
export function replayedOutcome(req: ScanRequestFields, stored: reportstore.StoredReport): ScanOutcome | undefined {
  if (stored.reportKind !== req.kind || stored.reportBinary.length === 0) return undefined;
  const common = { jobId: stored.jobId, pageToken: stored.pageToken, json: Buffer.from(stored.json).toString("utf8"), replayed: true };
  switch (req.kind) {
    case "tag_v3":
    case "tag_v2":
      return { kind: req.kind, report: fromBinary(TagReportSchema, stored.reportBinary), ...common };
    case "zip_v2":
    case "zip_v3":
      return { kind: req.kind, report: fromBinary(ZipReportSchema, stored.reportBinary), ...common };
    case "vast_v3":
      return { kind: req.kind, report: fromBinary(VastReportSchema, stored.reportBinary), ...common };
    case "video_v3":
      return { kind: req.kind, report: fromBinary(VideoFileReportSchema, stored.reportBinary), ...common };
    case "image_v3":
      return { kind: req.kind, report: fromBinary(ImageFileReportSchema, stored.reportBinary), ...common };
    case "audio_v3":
      return { kind: req.kind, report: fromBinary(AudioFileReportSchema, stored.reportBinary), ...common };
  }
}
