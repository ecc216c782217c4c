import { ScanKind } from "@cva/contracts";
import type { ReportKind } from "./scan/types.ts";

// Constants more than one part of the edge reads (routes, OpenAPI, gRPC): one module, so none of them imports another
// part's routes to get them.

export const SCAN_ENDPOINTS: ReadonlyArray<{ path: string; kind: ReportKind; summary: string; notes?: string }> = [
  {
    path: "/v3/scanTag",
    kind: "tag_v3",
    summary: "Scan an ad tag",
    notes:
      "targeting (device, language, country, page_url) is our extension to the spec, whose v3 has none: the same " +
      "object and validation as v2's, so a tag can be judged as a phone in the Netherlands with the v3 tests and report " +
      "page. Without it the tag is rendered as desktop, en-US, at the edge's SERVER_LOCATION.",
  },
  {
    path: "/v3/scanVAST",
    kind: "vast_v3",
    summary: "Scan a VAST tag",
    notes:
      "A VAST URL that answers nothing — its host does not resolve, refuses the connection, times out or fails the TLS " +
      "handshake — is a payload_error (not charged) whose message names the host and the cause, e.g. \"data: the VAST URL " +
      "could not be loaded: DNS lookup of ads.example failed: no such host (ENOTFOUND)\". A URL that answers with an HTTP " +
      "error gets its report (xml.http_code 404, …). A wrapper hop that fails is reported: wrapper_chain names the hop " +
      "and why, and the wrapper_chain test fails with the same message.",
  },
  {
    path: "/v3/scanZip",
    kind: "zip_v3",
    summary: "Scan a zip-packaged HTML5 creative",
    notes:
      "The v2 zip fields plus the v3 additions of the ad tag report (name, scan_results, landing_page — the page the " +
      "click tag opens when the creative is clicked —, animation_duration, time_to_visual_start) and has_backup_ad. " +
      "scan_results holds the zip tests of the spec set (meta_ad_size, click_tag, minified, external_assets, " +
      "zip_file_count, allowed_file_types, zip_size, unzipped_size, image_optimization, backup_ad) and the ad tag " +
      "tests on the render. targeting (device, language), an extension to the spec's v3, as in v2; without it: " +
      "rendered as desktop, en-US.",
  },
  ...(["video", "image", "audio"] as const).map((k) => ({
    path: `/v3/scan${k[0]!.toUpperCase()}${k.slice(1)}`,
    kind: `${k}_v3` as const,
    summary: `Scan a raw ${k} file`,
    notes:
      `The file as \`data\` (base64, within the JSON body limit), as \`url\` (fetched by the scanner under the outbound ` +
      `policy, like VAST media files), or as a multipart/form-data body with a \`file\` part and the same fields as form ` +
      `fields — streamed to storage, for files of any size up to the ${k} limit (MAX_${k.toUpperCase()}_BYTES; default ` +
      `${k === "video" ? 500 : k === "image" ? 20 : 200} MiB). Over the limit, empty, not a ${k} file, an unsupported codec, ` +
      `a truncated file → payload_error naming the cause. A url that answers nothing → payload_error naming the host and ` +
      `the cause (not charged), as for VAST.`,
  })),
  { path: "/v2/scanTag", kind: "tag_v2", summary: "Scan an ad tag (older version)" },
  { path: "/v2/scanZip", kind: "zip_v2", summary: "Scan a zip-packaged HTML5 creative (older version)" },
];

/** Workspace report listing (JSON and gRPC). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The scanner kinds /readyz needs at least one live worker of. */
export const SCANNER_KINDS: ReadonlyArray<[string, ScanKind]> = [
  ["tag", ScanKind.TAG],
  ["zip", ScanKind.ZIP],
  ["vast", ScanKind.VAST],
  ["media", ScanKind.MEDIA],
  // The raw-file scans: the media prober's workers for each (a process may run some and not others).
  ["video", ScanKind.VIDEO_FILE],
  ["image", ScanKind.IMAGE_FILE],
  ["audio", ScanKind.AUDIO_FILE],
];
