import { createHash, type Hash } from "node:crypto";
import type { ScanRequest, ScanRequestFields } from "./types.ts";

// Digest of a validated scan request, so an Idempotency-Key retry is recognised whatever door it used (JSON or gRPC),
// however the JSON was laid out (key order, whitespace, unknown fields, base64 line breaks): the same kind, the same
// decoded bytes and the same options give the same hash. Bytes enter as their own SHA-256.
export function requestHash(req: ScanRequest): string {
  return createHash("sha256").update(JSON.stringify(canonical(req))).digest("base64url");
}

// The same digest for a request whose payload the edge only streamed past (validation/base64-field.ts): an ad tag's
// html is the first member of its canonical form (keys sorted: html, kind, …), so the digest is fed
// `[["html","` + the html as JSON.stringify escapes it, piece by piece, and finished with the rest of the form; a zip
// enters as its bytes' SHA-256, as above.
const HTML_PREFIX = '[["html","';

export function startHtmlHash(): Hash {
  return createHash("sha256").update(HTML_PREFIX);
}

/** `fields`: the tag request without its html. */
export function finishHtmlHash(started: Hash, fields: ScanRequestFields): string {
  const rest = JSON.stringify(canonical({ ...fields, html: "" })).slice(HTML_PREFIX.length);
  return started.update(rest).digest("base64url");
}

/** `fields`: the zip request without its bytes. */
export function zipRequestHash(fields: ScanRequestFields, zipSha256Hex: string): string {
  return createHash("sha256").update(JSON.stringify(canonical({ ...fields, zip: new Sha256Of(zipSha256Hex) }))).digest("base64url");
}

class Sha256Of {
  constructor(readonly hex: string) {}
}

function canonical(v: unknown): unknown {
  if (v instanceof Uint8Array) return { sha256: createHash("sha256").update(v).digest("hex") };
  if (v instanceof Sha256Of) return { sha256: v.hex };
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === "object") {
    return Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => [k, canonical((v as Record<string, unknown>)[k])]);
  }
  return v;
}
