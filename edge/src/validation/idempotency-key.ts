import { payloadError } from "../errors.ts";

// The optional Idempotency-Key header (HTTP) / idempotency-key metadata (gRPC) of the scan endpoints: 1–255
// printable ASCII characters, compared exactly. Retries with the same key and request within 24 h answer the first
// scan (README "Idempotency").
export const IDEMPOTENCY_KEY_MAX = 255;

export function parseIdempotencyKey(raw: unknown, field = "Idempotency-Key"): string | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) throw payloadError(`${field}: send one value, not ${raw.length}`);
  if (typeof raw !== "string" || raw.length === 0) throw payloadError(`${field}: must not be empty (1–${IDEMPOTENCY_KEY_MAX} printable ASCII characters)`);
  if (raw.length > IDEMPOTENCY_KEY_MAX) throw payloadError(`${field}: longer than ${IDEMPOTENCY_KEY_MAX} characters`);
  if (!/^[\x20-\x7e]+$/.test(raw)) throw payloadError(`${field}: only printable ASCII characters (0x20–0x7E) are allowed`);
  return raw;
}
