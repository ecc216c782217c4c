import { createHash, type Hash } from "node:crypto";
import type { ScanRequest, ScanRequestFields } from "./types.ts";

// Digest of a validated scan request, so an Idempotency-Key retry is recognised whatever door it used (JSON or gRPC),
// however the JSON was laid out (key order, whitespace, unknown fields, base64 line breaks): the same kind, the same
// decoded bytes and the same options give the same hash. Bytes enter as their own SHA-256.
export function requestHash(req: ScanRequest): string {
  if ("file" in req) {
    const { file, ...fields } = req;
    return fileRequestHash(fields, "url" in file ? file : { sha256: "bytes" in file ? sha256Hex(file.bytes) : file.stored.sha256, fileName: file.fileName, mime: file.mime });
  }
  return createHash("sha256").update(JSON.stringify(canonical(req))).digest("base64url");
}

/** What of a raw file makes the request: its bytes (as their SHA-256) with the client's name and type, or its URL. */
export type FileIdentity = { sha256: string; fileName: string; mime: string } | { url: string };

/**
 * A raw-file request (scanVideo/Image/Audio) whichever way its file came — JSON `data`, multipart, a gRPC stream, or
 * only streamed past (withheld): the same bytes with the same name and type are the same request. Where the bytes are
 * stored (the uploads bucket's object name) never counts.
 */
export function fileRequestHash(fields: ScanRequestFields, file: FileIdentity): string {
  const f = "url" in file ? { url: file.url } : { sha256: new Sha256Of(file.sha256), fileName: file.fileName, mime: file.mime };
  return createHash("sha256").update(JSON.stringify(canonical({ ...fields, file: f }))).digest("base64url");
}

const sha256Hex = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

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
