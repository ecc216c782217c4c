import { isIP } from "node:net";
import { createOutboundPolicy } from "@cva/platform";
import { payloadError } from "../errors.ts";
import type { EdgeLimits } from "../ports.ts";
import type { CountryCode, DeviceName } from "../scan/types.ts";
import type { SpecIdCheck } from "./spec-ids.ts";

// Semantic checks shared by the JSON API (after base64 decoding) and the public gRPC service (raw bytes), so both
// refuse the same inputs with the same messages.

export const DEVICES: readonly DeviceName[] = ["desktop", "mobile"];
export const COUNTRIES: readonly CountryCode[] = ["usa", "nld"];
export const MAX_LANGUAGE_LENGTH = 256;
export const MAX_PAGE_URL_LENGTH = 2048;

// Accept-Language (RFC 9110 §12.5.4): comma-separated language ranges (RFC 4647: `*` or 1–8 alpha, then
// "-" 1–8 alphanumerics), each optionally with a q weight between 0 and 1 with up to three decimals.
const LANGUAGE_RANGE = "(?:\\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)";
const WEIGHT = "(?:[ \\t]*;[ \\t]*[qQ]=(?:0(?:\\.[0-9]{0,3})?|1(?:\\.0{0,3})?))?";
const ACCEPT_LANGUAGE = new RegExp(`^[ \\t]*${LANGUAGE_RANGE}${WEIGHT}(?:[ \\t]*,[ \\t]*${LANGUAGE_RANGE}${WEIGHT})*[ \\t]*$`);

export function checkLanguage(value: string, field: string): string {
  if (value.length === 0) throw payloadError(`${field}: must not be empty`);
  if (value.length > MAX_LANGUAGE_LENGTH) throw payloadError(`${field}: longer than ${MAX_LANGUAGE_LENGTH} characters`);
  if (!ACCEPT_LANGUAGE.test(value)) {
    throw payloadError(`${field}: not a valid Accept-Language value (e.g. "en-US" or "nl-NL,nl;q=0.9,en;q=0.8")`);
  }
  return value.trim();
}

export function checkDevice(value: string, field: string): DeviceName {
  if (!(DEVICES as readonly string[]).includes(value)) throw payloadError(`${field}: must be one of ${DEVICES.join(", ")}`);
  return value as DeviceName;
}

export function checkCountry(value: string, field: string): CountryCode {
  if (!(COUNTRIES as readonly string[]).includes(value)) throw payloadError(`${field}: must be one of ${COUNTRIES.join(", ")}`);
  return value as CountryCode;
}

/** An absolute http(s) URL with a host; returns it unchanged. */
export function checkHttpUrl(value: string, field: string, maxLength: number): string {
  if (value.length === 0) throw payloadError(`${field}: must not be empty`);
  if (value.length > maxLength) throw payloadError(`${field}: longer than ${maxLength} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw payloadError(`${field}: not a valid absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw payloadError(`${field}: must be an http or https URL`);
  if (url.hostname === "") throw payloadError(`${field}: URL has no host`);
  if (url.username !== "" || url.password !== "") throw payloadError(`${field}: URL must not carry credentials`);
  return value;
}

/** Public unicast only: the allowlist that lets scanners fetch private fixtures never applies to a host page. */
const PUBLIC_ONLY = createOutboundPolicy([]);

/**
 * `targeting.page_url`: an http(s) URL whose host is not a private, loopback, link-local or other non-public address
 * literal, nor `localhost`. The tag's host page is served at this URL's origin, so the creative runs same-origin with
 * whatever answers there; on an internal host it could read internal services. Names are checked again where they
 * resolve, in the tag scanner (services/tag-scanner/src/page-origin.ts).
 */
export function checkPageUrl(value: string, field: string): string {
  checkHttpUrl(value, field, MAX_PAGE_URL_LENGTH);
  const host = new URL(value).hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  const local = isIP(host) !== 0 ? !PUBLIC_ONLY.check(host).allowed : host === "localhost" || host.endsWith(".localhost");
  if (local) throw payloadError(`${field}: host ${host} is not a public address`);
  return value;
}

/**
 * The `url` of a raw-file scan: an absolute http(s) URL without credentials, at most 2048 characters. Where it points
 * is the outbound policy's business, in the worker that fetches it (as for VAST media files), so an unreachable or
 * refused host is answered with the host and the cause.
 */
export function checkFileUrl(value: string, field: string): string {
  return checkHttpUrl(value.trim(), field, MAX_PAGE_URL_LENGTH);
}

export function checkSpecId(value: number, field: string, isKnown: SpecIdCheck): number {
  if (!Number.isSafeInteger(value)) throw payloadError(`${field}: must be an integer`);
  if (!isKnown(value)) throw payloadError(`${field}: unknown specification set ${value}`);
  return value;
}

export function checkWorkspaceId(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw payloadError(`${field}: must be a non-negative integer`);
  return value;
}

export function checkName(value: string, field: string, limits: EdgeLimits): string {
  if ([...value].length > limits.maxNameLength) throw payloadError(`${field}: longer than ${limits.maxNameLength} characters`);
  return value;
}

// Decoded creatives. Each check reads only the facts it needs (size, first bytes, blank or not), so a payload the edge
// did not keep — only streamed past (validation/base64-field.ts) — is refused with the same messages as one it holds.

export function checkTagBytes(data: Uint8Array, field: string, limits: EdgeLimits): string {
  let html = "";
  checkTagFacts(data.length, () => (html = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8")).trim().length === 0, field, limits);
  return html;
}

/** An ad tag of `length` bytes; `blank`: its UTF-8 text is only whitespace (asked last). */
export function checkTagFacts(length: number, blank: () => boolean, field: string, limits: EdgeLimits): void {
  if (length === 0) throw payloadError(`${field}: must not be empty`);
  if (length > limits.maxTagBytes) {
    throw payloadError(`${field}: ad tag is ${length} bytes decoded, over the limit of ${limits.maxTagBytes} bytes`);
  }
  if (blank()) throw payloadError(`${field}: the ad tag is blank`);
}

export function checkZipBytes(data: Uint8Array, field: string, limits: EdgeLimits): Uint8Array {
  checkZipFacts(data.length, data.subarray(0, 4), field, limits);
  return data;
}

// A zip starts with a local file header (PK\3\4); an empty archive is only an end-of-central-directory record
// (PK\5\6). Anything else is not what /v2/scanZip scans; the zip analyzer checks the internals.
export function checkZipFacts(length: number, head: Uint8Array, field: string, limits: EdgeLimits): void {
  if (length === 0) throw payloadError(`${field}: must not be empty`);
  if (length > limits.maxZipBytes) {
    throw payloadError(`${field}: zip is ${length} bytes decoded, over the limit of ${limits.maxZipBytes} bytes`);
  }
  const sig = length >= 4 && head[0] === 0x50 && head[1] === 0x4b ? (head[2]! << 8) | head[3]! : -1;
  if (sig !== 0x0304 && sig !== 0x0506) throw payloadError(`${field}: not a zip archive`);
}

export function checkVastUrl(url: string, field: string, limits: EdgeLimits): string {
  const trimmed = url.trim();
  if (trimmed.length === 0) throw payloadError(`${field}: must not be empty`);
  if (Buffer.byteLength(trimmed) > limits.maxVastUrlBytes) {
    throw payloadError(`${field}: VAST URL longer than ${limits.maxVastUrlBytes} bytes`);
  }
  try {
    return checkHttpUrl(trimmed, field, Number.MAX_SAFE_INTEGER);
  } catch {
    throw payloadError(`${field}: must be the base64 of an http or https URL pointing to a VAST document`);
  }
}
