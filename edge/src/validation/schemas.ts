import type { EdgeLimits } from "../ports.ts";
import { COUNTRIES, DEVICES, MAX_LANGUAGE_LENGTH, MAX_PAGE_URL_LENGTH } from "./fields.ts";
import type { ReportKind } from "../scan/types.ts";
import type { JsonSchema } from "../views/schema.ts";

// Request body schemas, for the OpenAPI document only: validation itself is hand-written (validation/request.ts) so
// that its messages name the field and the check order is fixed. Kept next to the validator so both change together.
export function requestSchemas(limits: EdgeLimits): Record<ReportKind, JsonSchema> {
  const b64 = (what: string, maxDecoded: number): JsonSchema => ({
    type: "string",
    contentEncoding: "base64",
    description: `${what}, base64-encoded (strict RFC 4648 alphabet and padding; non-empty; at most ${maxDecoded} bytes decoded)`,
  });
  const v3 = {
    spec_id: { type: "integer", default: 0, description: "specification set to validate against; 0 = IAB guidelines; unknown ids are a payload_error" },
    workspace_id: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: "workspace the report is stored in" },
    name: { type: "string", maxLength: limits.maxNameLength, description: "echoed in the report as name" },
  };
  const allowedDomains = {
    allowed_domains: {
      type: "array",
      maxItems: 200,
      items: { type: "string", maxLength: 253, examples: ["*.doubleclick.net", "adsrvr.org"] },
      description:
        "the domains the creative may contact (\"connection screening\"): each entry covers the domain and its subdomains (a leading *. is the same). When given, the report's privacy.unapproved_domains lists every host contacted outside it (in any consent state) and the test approved_vendors_only fails on any. An entry that is not a domain name is a payload_error naming it. Not given (or empty) in a scan with a workspace_id: the workspace's stored list (PUT /v3/workspaces/{workspace_id}/settings), if it has one.",
    },
  };
  const language = {
    type: "string",
    maxLength: MAX_LANGUAGE_LENGTH,
    description: "HTTP Accept-Language value, e.g. en-US or nl-NL,nl;q=0.9; default en-US",
    examples: ["en-US"],
  };
  const device = { type: "string", enum: [...DEVICES], description: "default desktop" };
  const tagTargeting = {
    type: "object",
    description: "settings applied before the tag is loaded",
    properties: {
      device,
      language,
      country: { type: "string", enum: [...COUNTRIES], description: "worker location; default: the edge's SERVER_LOCATION" },
      page_url: { type: "string", format: "uri", maxLength: MAX_PAGE_URL_LENGTH, description: "http(s) URL of the publisher page the tag is placed in (the host page is served at this URL, location.href and the referrer are it). Its host must be a public address: a private, loopback or link-local address, localhost, or a name resolving to one is a payload_error \"targeting.page_url: host … is not a public address\"." },
    },
  };
  const zipTargeting = { type: "object", description: "other keys are ignored", properties: { device, language } };
  // v3 has no targeting in the spec (Versioning 2): ours is an extension, the v2 object with the same validation.
  const v3Extension =
    "Extension to the spec (whose v3 has no targeting): the same object, values and payload_error messages as v2's. Optional: without it the scan runs as desktop, en-US, at the edge's SERVER_LOCATION. The report's meta.device and meta.language say what was used.";
  const note = "Unknown fields are ignored; an optional field set to null counts as absent.";
  return {
    tag_v3: {
      type: "object",
      description: note,
      required: ["data"],
      properties: {
        data: b64("the ad tag (HTML/JavaScript)", limits.maxTagBytes),
        ...v3,
        ...allowedDomains,
        targeting: { ...tagTargeting, description: `settings applied before the tag is loaded. ${v3Extension}` },
      },
    },
    vast_v3: {
      type: "object",
      description: note,
      required: ["data"],
      properties: { data: b64("an http(s) URL of a VAST document", limits.maxVastUrlBytes), ...v3 },
    },
    tag_v2: {
      type: "object",
      description: note,
      required: ["data"],
      properties: {
        data: b64("the ad tag (HTML/JavaScript)", limits.maxTagBytes),
        targeting: tagTargeting,
      },
    },
    zip_v3: {
      type: "object",
      description: note,
      required: ["data"],
      properties: {
        data: b64("a zip archive (starts with PK\\x03\\x04, or an empty archive)", limits.maxZipBytes),
        ...v3,
        ...allowedDomains,
        targeting: { ...zipTargeting, description: `other keys are ignored. ${v3Extension}` },
      },
    },
    ...fileRequestSchemas(limits, v3, note),
    zip_v2: {
      type: "object",
      description: note,
      required: ["data"],
      properties: {
        data: b64("a zip archive (starts with PK\\x03\\x04, or an empty archive)", limits.maxZipBytes),
        targeting: zipTargeting,
      },
    },
  };
}

const FILE_LIMITS = { video_v3: "maxVideoBytes", image_v3: "maxImageBytes", audio_v3: "maxAudioBytes" } as const;
const FILE_WHAT = { video_v3: "the video file", image_v3: "the image file (PNG, JPEG, GIF, WebP, AVIF, SVG)", audio_v3: "the audio file" } as const;

// scanVideo / scanImage / scanAudio as JSON: the file as `data` (base64) or `url`, exactly one.
function fileRequestSchemas(limits: EdgeLimits, v3: Record<string, JsonSchema>, note: string): Record<keyof typeof FILE_LIMITS, JsonSchema> {
  const one = (kind: keyof typeof FILE_LIMITS): JsonSchema => ({
    type: "object",
    description: `${note} Exactly one of data and url. Larger files: multipart/form-data.`,
    oneOf: [{ required: ["data"] }, { required: ["url"] }],
    properties: {
      data: {
        type: "string",
        contentEncoding: "base64",
        description: `${FILE_WHAT[kind]}, base64-encoded (strict RFC 4648; non-empty; at most ${limits[FILE_LIMITS[kind]]} bytes decoded, and the JSON body at most ${limits.maxBodyBytes} bytes)`,
      },
      url: {
        type: "string",
        format: "uri",
        maxLength: MAX_PAGE_URL_LENGTH,
        description: "http(s) URL the scanner downloads the file from, under the outbound policy (public addresses only); one that answers nothing is a payload_error naming the host and the cause, not charged",
      },
      ...v3,
    },
  });
  return { video_v3: one("video_v3"), image_v3: one("image_v3"), audio_v3: one("audio_v3") };
}

/** The multipart/form-data body of the raw-file scans: a `file` part streamed to storage, and the v3 fields as text. */
export function multipartRequestSchema(kind: keyof typeof FILE_LIMITS, limits: EdgeLimits): JsonSchema {
  return {
    type: "object",
    description:
      "The file is streamed to storage as it arrives (never held whole by the server); its size is checked as it arrives. " +
      "Fields other than these are ignored; only the first part named file is read.",
    required: ["file"],
    properties: {
      file: { type: "string", contentMediaType: "application/octet-stream", description: `${FILE_WHAT[kind]}: non-empty, at most ${limits[FILE_LIMITS[kind]]} bytes; the part's filename and Content-Type are reported (file.name, file.declared_mime_type), never trusted` },
      spec_id: { type: "integer", default: 0, description: "as text; specification set to validate against" },
      workspace_id: { type: "integer", minimum: 0, default: 0, description: "as text; workspace the report is stored in" },
      name: { type: "string", maxLength: limits.maxNameLength, description: "echoed in the report as name" },
    },
  };
}
