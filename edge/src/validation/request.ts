import { payloadError } from "../errors.ts";
import type { EdgeLimits } from "../ports.ts";
import type { ReportKind, ScanRequest } from "../scan/types.ts";
import { decodeBase64Strict } from "./base64.ts";
import {
  checkCountry,
  checkDevice,
  checkPageUrl,
  checkLanguage,
  checkName,
  checkSpecId,
  checkTagBytes,
  checkVastUrl,
  checkWorkspaceId,
  checkZipBytes,
  type TargetingInput,
} from "./fields.ts";
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

/** Validates a JSON body for one of the four scan endpoints; throws payload_error naming the field. */
export function parseScanBody(kind: ReportKind, rawBody: unknown, ctx: RequestContext): ScanRequest {
  const body = requireObjectBody(rawBody);
  const data = requiredString(body, "data");
  const { limits } = ctx;
  switch (kind) {
    case "tag_v3": {
      const opts = v3Options(body, ctx);
      const bytes = decodeBase64Strict(data, "data", limits.maxTagBytes, "ad tag");
      return { kind, html: checkTagBytes(bytes, "data", limits), ...opts };
    }
    case "tag_v2": {
      const targeting = parseTargeting(body, ["device", "language", "country", "pageUrl"]);
      const bytes = decodeBase64Strict(data, "data", limits.maxTagBytes, "ad tag");
      return { kind, html: checkTagBytes(bytes, "data", limits), targeting };
    }
    case "zip_v2": {
      // The spec lists only device and language for zip targeting; other keys are ignored like unknown fields.
      const targeting = parseTargeting(body, ["device", "language"]);
      const bytes = decodeBase64Strict(data, "data", limits.maxZipBytes, "zip");
      return { kind, zip: checkZipBytes(bytes, "data", limits), targeting };
    }
    case "zip_v3": {
      // v3 has no targeting (spec, Versioning 2): a zip v3 scan runs like a v3 tag scan, desktop, en-US.
      const opts = v3Options(body, ctx);
      const bytes = decodeBase64Strict(data, "data", limits.maxZipBytes, "zip");
      return { kind, zip: checkZipBytes(bytes, "data", limits), ...opts };
    }
    case "vast_v3": {
      const opts = v3Options(body, ctx);
      // The base64 of a URL ≤ 8 KB; a little slack for surrounding whitespace, which is trimmed.
      const bytes = decodeBase64Strict(data, "data", limits.maxVastUrlBytes + 64, "VAST URL");
      return { kind, url: checkVastUrl(bytes.toString("utf8"), "data", limits), ...opts };
    }
  }
}
