import { payloadError } from "../errors.ts";

// Strict RFC 4648 §4 base64: standard alphabet, length a multiple of 4, '=' only as final padding, and canonical
// (the unused bits of the last group are zero), so every accepted string has exactly one meaning. Node's decoder
// silently skips bad characters, which would scan something other than what the client sent.
// (Checked as a plain character class plus a length test: a grouped regex recurses per group and overflows the stack
// on multi-megabyte fields.)
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (s: string) => s.length % 4 === 0 && BASE64_CHARS.test(s);

/** Decoded length of a syntactically valid base64 string, computed without decoding. */
export function decodedLength(b64: string): number {
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return (b64.length / 4) * 3 - pad;
}

/**
 * Decodes `value` strictly; `maxBytes` is checked before decoding so an oversized field never gets decoded.
 * Errors name the field.
 */
export function decodeBase64Strict(value: string, field: string, maxBytes: number, what: string): Buffer {
  if (!isBase64(value)) {
    throw payloadError(`${field}: not valid base64 (standard alphabet A-Z a-z 0-9 + /, '=' padding to a multiple of 4, no whitespace)`);
  }
  const n = decodedLength(value);
  if (n === 0) throw payloadError(`${field}: must not be empty`);
  if (n > maxBytes) throw payloadError(`${field}: ${what} is ${n} bytes decoded, over the limit of ${maxBytes} bytes`);
  const buf = Buffer.from(value, "base64");
  if (buf.toString("base64") !== value) throw payloadError(`${field}: not valid base64 (non-canonical padding bits)`);
  return buf;
}
