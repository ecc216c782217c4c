import { payloadError } from "../errors.ts";
import type { EdgeLimits } from "../ports.ts";
import { withhold } from "../scan/admission.ts";
import type { InFlightCap } from "../scan/in-flight-caps.ts";
import { fileLimitOf } from "../scan/job.ts";
import { fileRequestHash, finishHtmlHash, zipRequestHash } from "../scan/request-hash.ts";
import type {
  FileReportKind, ReceivedScanRequest, ReportKind, ScanRequest, ScanRequestFields, TargetingInput, WithheldScanRequest,
} from "../scan/types.ts";
import { decodeBase64Strict } from "./base64.ts";
import { Base64Field } from "./base64-field.ts";
import {
  checkCountry,
  checkDevice,
  checkPageUrl,
  checkLanguage,
  checkFileUrl,
  checkName,
  checkSpecId,
  checkTagBytes,
  checkTagFacts,
  checkVastUrl,
  checkWorkspaceId,
  checkZipBytes,
  checkZipFacts,
} from "./fields.ts";
import { MultipartScanBody } from "./multipart-reader.ts";
import type { SpecIdCheck } from "./spec-ids.ts";

// JSON bodies of the four scan endpoints → validated ScanRequest. Decisions (also in the OpenAPI descriptions):
// - unknown fields are ignored (forward compatibility; clients of the older API send extra keys);
// - an optional field that is null counts as absent;
// - numbers must be JSON numbers (no "0" strings), integers where the spec says int.

type Json = Record<string, unknown>;

export interface RequestContext {
  limits: EdgeLimits;
  isKnownSpecId: SpecIdCheck;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

export function requireObjectBody(body: unknown): Json {
  if (body === undefined) throw payloadError("body: a JSON object is required");
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw payloadError(`body: must be a JSON object, got ${typeName(body)}`);
  }
  return body as Json;
}

function optional(body: Json, key: string): unknown {
  const v = body[key];
  return v === null ? undefined : v;
}

function requiredString(body: Json, field: string): string {
  const v = body[field];
  if (v === undefined || v === null) throw payloadError(`${field}: required`);
  if (typeof v !== "string") throw payloadError(`${field}: must be a string, got ${typeName(v)}`);
  if (v.length === 0) throw payloadError(`${field}: must not be empty`);
  return v;
}

function optionalString(body: Json, key: string, field: string): string | undefined {
  const v = optional(body, key);
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw payloadError(`${field}: must be a string, got ${typeName(v)}`);
  return v;
}

function optionalInteger(body: Json, key: string, field: string): number | undefined {
  const v = optional(body, key);
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v)) throw payloadError(`${field}: must be an integer, got ${typeName(v)}`);
  return v;
}

/** allowed_domains entries: a domain name, optionally written `*.example.com` (the same: subdomains are always in). */
const DOMAIN = /^(\*\.)?([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
export const MAX_ALLOWED_DOMAINS = 200;

/** v3 tag and zip: `allowed_domains`, the hosts a creative may contact (privacy.unapproved_domains, approved_vendors_only). */
function allowedDomains(body: Json): { vendorAllowlist?: string[] } {
  return checkAllowedDomains(optional(body, "allowed_domains"));
}

/**
 * `allowed_domains` as both doors take it (JSON body, gRPC ScanTagV3Request/ScanZipV3Request field 5): at most 200
 * domain names, lower-cased, a leading `*.` dropped (subdomains are always in); undefined or empty = none given.
 */
export function checkAllowedDomains(v: unknown): { vendorAllowlist?: string[] } {
  if (v === undefined) return {};
  if (!Array.isArray(v)) throw payloadError(`allowed_domains: must be an array of domain names, got ${typeName(v)}`);
  // The streamed body keeps one item past the limit (scan-body-reader.ts), so the count is not told.
  if (v.length > MAX_ALLOWED_DOMAINS) throw payloadError(`allowed_domains: at most ${MAX_ALLOWED_DOMAINS} entries`);
  const out: string[] = [];
  v.forEach((d: unknown, i: number) => {
    if (typeof d !== "string") throw payloadError(`allowed_domains[${i}]: must be a string, got ${typeName(d)}`);
    const name = d.trim().toLowerCase().replace(/\.$/, "");
    if (name.length === 0 || name.length > 253 || !DOMAIN.test(name)) throw payloadError(`allowed_domains[${i}]: must be a domain name such as ads.example.com or *.example.com`);
    out.push(name.replace(/^\*\./, ""));
  });
  return out.length > 0 ? { vendorAllowlist: [...new Set(out)] } : {};
}

// The targeting keys of each kind, v2 and v3 alike. The spec lists only device and language for zip targeting; other
// keys are ignored like unknown fields.
const TAG_TARGETING: readonly (keyof TargetingInput)[] = ["device", "language", "country", "pageUrl"];
const ZIP_TARGETING: readonly (keyof TargetingInput)[] = ["device", "language"];

// v3 has no targeting in the spec (Versioning 2); we accept v2's as an extension, validated the same way, so a user
// who wants "this tag as a phone in the Netherlands" still gets the v3 tests and report page. Carried only when some
// key was given: a v3 request without it runs as before (desktop, en-US, the edge's location) and hashes as before.
export const v3Targeting = (t: TargetingInput): { targeting?: TargetingInput } => (Object.keys(t).length > 0 ? { targeting: t } : {});

function parseTargeting(body: Json, allowed: readonly (keyof TargetingInput)[]): TargetingInput {
  const t = optional(body, "targeting");
  if (t === undefined) return {};
  if (typeof t !== "object" || Array.isArray(t)) throw payloadError(`targeting: must be an object, got ${typeName(t)}`);
  const o = t as Json;
  const out: TargetingInput = {};
  const device = optionalString(o, "device", "targeting.device");
  if (device !== undefined) out.device = checkDevice(device, "targeting.device");
  const language = optionalString(o, "language", "targeting.language");
  if (language !== undefined) out.language = checkLanguage(language, "targeting.language");
  if (allowed.includes("country")) {
    const country = optionalString(o, "country", "targeting.country");
    if (country !== undefined) out.country = checkCountry(country, "targeting.country");
  }
  if (allowed.includes("pageUrl")) {
    const pageUrl = optionalString(o, "page_url", "targeting.page_url");
    if (pageUrl !== undefined) out.pageUrl = checkPageUrl(pageUrl, "targeting.page_url");
  }
  return out;
}

function v3Options(body: Json, ctx: RequestContext): { specId: number; workspaceId: number; name: string } {
  const specId = optionalInteger(body, "spec_id", "spec_id") ?? 0;
  const workspaceId = optionalInteger(body, "workspace_id", "workspace_id") ?? 0;
  const name = optionalString(body, "name", "name") ?? "";
  return {
    specId: checkSpecId(specId, "spec_id", ctx.isKnownSpecId),
    workspaceId: checkWorkspaceId(workspaceId, "workspace_id"),
    name: checkName(name, "name", ctx.limits),
  };
}

// The request's `data`: a string (a parsed body), or the field a streamed body was read into (scan-body-reader.ts).
function requiredData(body: Json): string | Base64Field {
  const v = body.data;
  if (v instanceof Base64Field) {
    if (v.length === 0) throw payloadError("data: must not be empty");
    return v;
  }
  return requiredString(body, "data");
}

/**
 * Validates a JSON body for one of the scan endpoints; throws payload_error naming the field. `body` is a parsed JSON
 * value or what scan-body-reader.ts read; when its payload was not kept (`withheld`: the customer was at its in-flight
 * cap, scan/admission.ts) the checks run on the facts kept and the request comes back withheld.
 */
export function parseScanBody(kind: ReportKind, rawBody: unknown, ctx: RequestContext & { withheld?: InFlightCap }): ReceivedScanRequest {
  if (kind === "video_v3" || kind === "image_v3" || kind === "audio_v3") return parseFileBody(kind, rawBody, ctx);
  const body = requireObjectBody(rawBody);
  const data = requiredData(body);
  const { limits } = ctx;
  // A request the edge keeps whole, or withholds although it holds it (a VAST URL is always kept: it is small).
  const received = (req: ScanRequest): ReceivedScanRequest => (ctx.withheld ? withhold(req, ctx.withheld) : req);
  const withheld = (fields: ScanRequestFields, requestHash: string): WithheldScanRequest => ({
    ...fields,
    withheld: { requestHash, lane: ctx.withheld!.lane, max: ctx.withheld!.max },
  });
  switch (kind) {
    case "tag_v3":
    case "tag_v2": {
      const targeting = parseTargeting(body, TAG_TARGETING);
      const fields: ScanRequestFields = kind === "tag_v3"
        ? { kind, ...v3Options(body, ctx), ...allowedDomains(body), ...v3Targeting(targeting) }
        : { kind, targeting };
      const bytes = decodeBase64Strict(data, "data", limits.maxTagBytes, "ad tag");
      if (bytes instanceof Uint8Array) return received({ ...fields, html: checkTagBytes(bytes, "data", limits) } as ScanRequest);
      checkTagFacts((data as Base64Field).decodedLength, () => bytes.blank, "data", limits);
      return withheld(fields, finishHtmlHash(bytes.hash, fields));
    }
    case "zip_v2":
    case "zip_v3": {
      const targeting = parseTargeting(body, ZIP_TARGETING);
      const fields: ScanRequestFields = kind === "zip_v3"
        ? { kind, ...v3Options(body, ctx), ...allowedDomains(body), ...v3Targeting(targeting) }
        : { kind, targeting };
      const bytes = decodeBase64Strict(data, "data", limits.maxZipBytes, "zip");
      if (bytes instanceof Uint8Array) return received({ ...fields, zip: checkZipBytes(bytes, "data", limits) } as ScanRequest);
      checkZipFacts((data as Base64Field).decodedLength, bytes.head, "data", limits);
      return withheld(fields, zipRequestHash(fields, bytes.hash.digest("hex")));
    }
    case "vast_v3": {
      const opts = v3Options(body, ctx);
      // The base64 of a URL ≤ 8 KB; a little slack for surrounding whitespace, which is trimmed.
      const bytes = decodeBase64Strict(data, "data", limits.maxVastUrlBytes + 64, "VAST URL") as Buffer;
      return received({ kind, url: checkVastUrl(bytes.toString("utf8"), "data", limits), ...opts });
    }
    default:
      throw new Error(`not a scan kind: ${kind as string}`);
  }
}

/** What each raw-file endpoint calls its file in messages. */
export const FILE_WHAT: Record<FileReportKind, string> = { video_v3: "video", image_v3: "image", audio_v3: "audio file" };

// A raw-file request: a JSON body with `data` (base64) or `url`, or a multipart/form-data body (read by
// multipart-reader.ts: its `file` part already streamed into the uploads bucket, or only digested when withheld) whose
// fields are strings.
function parseFileBody(kind: FileReportKind, rawBody: unknown, ctx: RequestContext & { withheld?: InFlightCap }): ReceivedScanRequest {
  const { limits } = ctx;
  const max = fileLimitOf(kind, limits);
  const what = FILE_WHAT[kind];
  const withheld = (fields: ScanRequestFields, requestHash: string): WithheldScanRequest => ({
    ...fields,
    withheld: { requestHash, lane: ctx.withheld!.lane, max: ctx.withheld!.max },
  });
  if (rawBody instanceof MultipartScanBody) {
    const fields = { kind, ...v3Options(formFields(rawBody.fields), ctx) };
    const f = rawBody.file;
    if (!f) throw payloadError("file: required (a multipart/form-data part named \"file\")");
    if (f.size === 0) throw payloadError("file: must not be empty");
    if (!f.stored) return withheld(fields, fileRequestHash(fields, f));
    const req: ScanRequest = { ...fields, file: { stored: f.stored, fileName: f.fileName, mime: f.mime } };
    return ctx.withheld ? withhold(req, ctx.withheld) : req;
  }
  const body = requireObjectBody(rawBody);
  const fields = { kind, ...v3Options(body, ctx) };
  const url = optionalString(body, "url", "url");
  const hasData = optional(body, "data") !== undefined;
  if (url !== undefined && hasData) throw payloadError("data, url: give the file as one of them, not both");
  if (url !== undefined) {
    const req: ScanRequest = { ...fields, file: { url: checkFileUrl(url, "url") } };
    return ctx.withheld ? withhold(req, ctx.withheld) : req;
  }
  if (!hasData) throw payloadError("data: required (the file as base64; or `url`, or a multipart/form-data body with a file part)");
  const data = requiredData(body);
  const bytes = decodeBase64Strict(data, "data", max, what);
  if (bytes instanceof Uint8Array) {
    const req: ScanRequest = { ...fields, file: { bytes, fileName: "", mime: "" } };
    return ctx.withheld ? withhold(req, ctx.withheld) : req;
  }
  return withheld(fields, fileRequestHash(fields, { sha256: bytes.hash.digest("hex"), fileName: "", mime: "" }));
}

// Form fields are text: spec_id and workspace_id must read as integers, as the JSON numbers would.
function formFields(form: Readonly<Record<string, string>>): Json {
  const out: Json = {};
  for (const key of ["spec_id", "workspace_id"]) {
    const v = form[key];
    if (v === undefined || v === "") continue;
    if (!/^-?[0-9]{1,16}$/.test(v.trim())) throw payloadError(`${key}: must be an integer, got ${JSON.stringify(v.slice(0, 32))}`);
    out[key] = Number(v.trim());
  }
  if (form.name !== undefined) out.name = form.name;
  return out;
}
