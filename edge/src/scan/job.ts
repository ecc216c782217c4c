import { create } from "@bufbuild/protobuf";
import {
  Device, FileInputSchema, ScanJobSchema, ScanKind, TagInputSchema, TargetingSchema, VastInputSchema, ZipInputSchema, type ScanJob,
} from "@cva/contracts";
import type { EdgeConfig, EdgeLimits } from "../ports.ts";
import type { FileReportKind, ReportKind, ScanRequest, ScanRequestFields, TargetingInput } from "./types.ts";

// A validated request as the scan job the workers run: which kind and API version, where (location), by when.

const V3_TARGETING = { device: "desktop", language: "en-US" } as const;

export const KIND_OF: Record<ReportKind, { kind: ScanKind; apiVersion: "v2" | "v3"; label: string }> = {
  tag_v3: { kind: ScanKind.TAG, apiVersion: "v3", label: "tag" },
  tag_v2: { kind: ScanKind.TAG, apiVersion: "v2", label: "tag" },
  zip_v2: { kind: ScanKind.ZIP, apiVersion: "v2", label: "zip" },
  zip_v3: { kind: ScanKind.ZIP, apiVersion: "v3", label: "zip" },
  vast_v3: { kind: ScanKind.VAST, apiVersion: "v3", label: "vast" },
  video_v3: { kind: ScanKind.VIDEO_FILE, apiVersion: "v3", label: "video" },
  image_v3: { kind: ScanKind.IMAGE_FILE, apiVersion: "v3", label: "image" },
  audio_v3: { kind: ScanKind.AUDIO_FILE, apiVersion: "v3", label: "audio" },
};

/** The job input and report case of each raw-file kind. */
const FILE_CASE = { video_v3: "videoFile", image_v3: "imageFile", audio_v3: "audioFile" } as const;

/** The largest file each raw-file endpoint takes (MAX_VIDEO_BYTES, MAX_IMAGE_BYTES, MAX_AUDIO_BYTES). */
export const fileLimitOf = (kind: FileReportKind, limits: EdgeLimits): number =>
  kind === "video_v3" ? limits.maxVideoBytes : kind === "image_v3" ? limits.maxImageBytes : limits.maxAudioBytes;

/** Which report the job's outcome must carry (runChildJob's check). */
export const reportCaseOf = (req: Pick<ScanRequestFields, "kind">) =>
  req.kind === "zip_v2" || req.kind === "zip_v3"
    ? "zip"
    : req.kind === "vast_v3"
      ? "vast"
      : req.kind === "tag_v3" || req.kind === "tag_v2"
        ? "tag"
        : FILE_CASE[req.kind];

/** The location a scan runs in: its targeting.country, else the edge's SERVER_LOCATION. */
export const locationOf = (req: ScanRequestFields, config: EdgeConfig) => ("targeting" in req ? req.targeting?.country : undefined) ?? config.serverLocation;

const allowlist = (req: ScanRequest): string[] => ("vendorAllowlist" in req ? (req.vendorAllowlist ?? []) : []);

export function buildJob(config: EdgeConfig, jobId: string, req: ScanRequest): { job: ScanJob; location: string } {
  const { kind, apiVersion } = KIND_OF[req.kind];
  // v2 always, v3 tag/zip when the request chose some (our extension): otherwise desktop, en-US.
  const t: TargetingInput = ("targeting" in req ? req.targeting : undefined) ?? {};
  const location = locationOf(req, config);
  const targeting = create(TargetingSchema, {
    device: (t.device ?? V3_TARGETING.device) === "mobile" ? Device.MOBILE : Device.DESKTOP,
    language: t.language ?? V3_TARGETING.language,
    country: location,
    pageUrl: t.pageUrl ?? "",
  });
  const job = create(ScanJobSchema, {
    jobId,
    kind,
    apiVersion,
    specId: "specId" in req ? req.specId : 0,
    targeting,
    deadlineUnixMs: BigInt(Date.now() + config.scanTimeoutMs),
    input:
      req.kind === "tag_v3" || req.kind === "tag_v2"
        ? { case: "tag", value: create(TagInputSchema, { creative: { case: "html", value: req.html }, captureLandingPage: req.kind === "tag_v3", allowedDomains: allowlist(req) }) }
        : req.kind === "zip_v2" || req.kind === "zip_v3"
          ? { case: "zip", value: create(ZipInputSchema, { data: req.zip, captureLandingPage: req.kind === "zip_v3", allowedDomains: allowlist(req) }) }
          : req.kind === "vast_v3"
            ? { case: "vast", value: create(VastInputSchema, { url: req.url }) }
            : { case: FILE_CASE[req.kind], value: fileInputOf(req, config) },
  });
  return { job, location };
}

// A file travels by reference only (a NATS message holds 1 MB): the door or the saga stored its bytes first.
function fileInputOf(req: Extract<ScanRequest, { kind: FileReportKind }>, config: EdgeConfig) {
  const f = req.file;
  if ("bytes" in f) throw new Error("a raw file must be stored in the uploads bucket before its job is built");
  const maxBytes = BigInt(fileLimitOf(req.kind, config.limits));
  if ("url" in f) return create(FileInputSchema, { source: { case: "url", value: f.url }, maxBytes });
  return create(FileInputSchema, {
    source: { case: "stored", value: { object: f.stored.object, size: BigInt(f.stored.size), sha256: f.stored.sha256 } },
    name: f.fileName,
    mime: f.mime,
    maxBytes,
  });
}
