import type { AudioFileReport, ImageFileReport, TagReport, VastReport, VideoFileReport, ZipReport } from "@cva/contracts";

// The edge's request types, whichever door a request came through: what validation produces and the scan use-cases
// take. Only here (validation, the doors and the use-cases import them), so the shape of a request is read in one place.

/** The raw-file scans (POST /v3/scanVideo, scanImage, scanAudio). */
export type FileReportKind = "video_v3" | "image_v3" | "audio_v3";
export const FILE_REPORT_KINDS: readonly FileReportKind[] = ["video_v3", "image_v3", "audio_v3"];
export const isFileKind = (k: ReportKind): k is FileReportKind => (FILE_REPORT_KINDS as readonly string[]).includes(k);

export type ReportKind = "tag_v3" | "tag_v2" | "zip_v2" | "zip_v3" | "vast_v3" | FileReportKind;
export const REPORT_KINDS: readonly ReportKind[] = ["tag_v3", "tag_v2", "zip_v2", "zip_v3", "vast_v3", ...FILE_REPORT_KINDS];

export type DeviceName = "desktop" | "mobile";
export type CountryCode = "usa" | "nld";

/**
 * Validated targeting (tag: device, language, country, page_url; zip: device, language). v2 always has it; a v3 tag or
 * zip scan has it only when the request gave some (our extension to the spec, whose v3 has no targeting), so a v3
 * request without targeting keeps the same canonical form (request-hash.ts) as before the extension.
 */
export interface TargetingInput {
  device?: DeviceName;
  language?: string;
  country?: CountryCode;
  pageUrl?: string;
}

/** An object of the uploads bucket (cva.jobs.v1.StoredFile): a reference, never the bytes. */
export interface StoredFileRef {
  object: string;
  size: number;
  /** Lowercase hex. */
  sha256: string;
}

/**
 * Where a raw file is: bytes the door holds (a JSON `data`, within the body limit), an object the door streamed into
 * the uploads bucket (multipart, gRPC stream), or a URL the worker fetches under the outbound policy. `fileName` and
 * `mime` are the client's (multipart part / gRPC fields): reports only, never trusted.
 */
export type FileSource =
  | { bytes: Uint8Array; fileName: string; mime: string }
  | { stored: StoredFileRef; fileName: string; mime: string }
  | { url: string };

/** A validated scan request, whichever door (JSON or gRPC) it came through. */
export type ScanRequest =
  | { kind: "tag_v3"; html: string; specId: number; workspaceId: number; name: string; vendorAllowlist?: string[]; targeting?: TargetingInput }
  | { kind: "tag_v2"; html: string; targeting: TargetingInput }
  | { kind: "zip_v2"; zip: Uint8Array; targeting: TargetingInput }
  | { kind: "zip_v3"; zip: Uint8Array; specId: number; workspaceId: number; name: string; vendorAllowlist?: string[]; targeting?: TargetingInput }
  | { kind: "vast_v3"; url: string; specId: number; workspaceId: number; name: string }
  | { kind: FileReportKind; file: FileSource; specId: number; workspaceId: number; name: string };

// vendorAllowlist: the request's allowed_domains (approved_vendors_only), set only when given. Its key sorts after
// "html", which must stay the first member of a request's canonical form (scan/request-hash.ts).
type WithoutPayload<R> = R extends unknown ? Omit<R, "html" | "zip" | "file"> : never;
/** A request's kind, options and targeting: everything but its payload (an ad tag's html, a zip's bytes, a file). */
export type ScanRequestFields = WithoutPayload<ScanRequest>;

/**
 * A validated scan request whose payload the edge did not keep: its customer already had as many requests of the
 * kind in flight at this edge as its in-flight cap allows when it arrived (scan/admission.ts), so its body was only
 * streamed past, checked and digested. It is answered like any other up to the reservation — a payload_error, a
 * quota_error, the replay of an earlier scan with its Idempotency-Key — and never scanned: the answer is the
 * in-flight refusal of `lane`, whose cap was `max`.
 */
export type WithheldScanRequest = ScanRequestFields & { withheld: { requestHash: string; lane: string; max: number } };

/** What the doors hand to the scan use-cases. */
export type ReceivedScanRequest = ScanRequest | WithheldScanRequest;

export interface Principal {
  customerId: string;
  keyId: string;
}

// `replayed`: the answer of an earlier scan with the same Idempotency-Key and request (json = its stored bytes).
export type ScanOutcome = (
  | { kind: "tag_v3" | "tag_v2"; jobId: string; pageToken: string; report: TagReport; json: string }
  | { kind: "zip_v2" | "zip_v3"; jobId: string; pageToken: string; report: ZipReport; json: string }
  | { kind: "vast_v3"; jobId: string; pageToken: string; report: VastReport; json: string }
  | { kind: "video_v3"; jobId: string; pageToken: string; report: VideoFileReport; json: string }
  | { kind: "image_v3"; jobId: string; pageToken: string; report: ImageFileReport; json: string }
  | { kind: "audio_v3"; jobId: string; pageToken: string; report: AudioFileReport; json: string }
) & { replayed?: boolean };

export interface ScanOptions {
  /** Validated Idempotency-Key (validation/idempotency-key.ts). */
  idempotencyKey?: string;
}
