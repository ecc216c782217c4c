import { createHash } from "node:crypto";
import type { ScanRequest } from "./types.ts";

// Digest of a validated scan request, so an Idempotency-Key retry is recognised whatever door it used (JSON or gRPC),
// however the JSON was laid out (key order, whitespace, unknown fields, base64 line breaks): the same kind, the same
// decoded bytes and the same options give the same hash. Bytes enter as their own SHA-256.
export function requestHash(req: ScanRequest): string {
  return createHash("sha256").update(JSON.stringify(canonical(req))).digest("base64url");
}

function canonical(v: unknown): unknown {
  if (v instanceof Uint8Array) return { sha256: createHash("sha256").update(v).digest("hex") };
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === "object") {
    return Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => [k, canonical((v as Record<string, unknown>)[k])]);
  }
  return v;
}
