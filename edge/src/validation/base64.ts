import { payloadError } from "../errors.ts";
import type { Base64Field, WithheldFacts } from "./base64-field.ts";

// Strict RFC 4648 §4 base64: standard alphabet, length a multiple of 4, '=' only as final padding, and canonical
// (the unused bits of the last group are zero), so every accepted string has exactly one meaning. Node's decoder
// silently skips bad characters, which would scan something other than what the client sent.
// (Checked as a plain character class plus a length test: a grouped regex recurses per group and overflows the stack
// on multi-megabyte fields.) The same checks run on a field read from a streamed body (base64-field.ts).
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (s: string) => s.length % 4 === 0 && BASE64_CHARS.test(s);
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Decoded length of a syntactically valid base64 string, computed without decoding. */
export function decodedLength(b64: string): number {
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return (b64.length / 4) * 3 - pad;
}

// The bits a padded last group does not use are zero (read from its last data character: no re-encoding of the
// whole field to compare).
function isCanonical(b64: string): boolean {
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  if (pad === 0) return true;
  const last = ALPHABET.indexOf(b64[b64.length - 1 - pad] ?? "A");
  return (last & (pad === 1 ? 0x03 : 0x0f)) === 0;
}

/**
 * Decodes `value` strictly; `maxBytes` is checked before decoding so an oversized field never gets decoded.
 * Errors name the field. A field read from a streamed body answers with its kept bytes or, when the edge did not keep
 * them, the facts its checks need.
 */
export function decodeBase64Strict(value: string, field: string, maxBytes: number, what: string): Buffer;
export function decodeBase64Strict(value: string | Base64Field, field: string, maxBytes: number, what: string): Buffer | WithheldFacts;
export function decodeBase64Strict(value: string | Base64Field, field: string, maxBytes: number, what: string): Buffer | WithheldFacts {
  const streamed = typeof value !== "string";
  if (!(streamed ? value.isBase64 : isBase64(value))) {
    throw payloadError(`${field}: not valid base64 (standard alphabet A-Z a-z 0-9 + /, '=' padding to a multiple of 4, no whitespace)`);
  }
  const n = streamed ? value.decodedLength : decodedLength(value);
  if (n === 0) throw payloadError(`${field}: must not be empty`);
  if (n > maxBytes) throw payloadError(`${field}: ${what} is ${n} bytes decoded, over the limit of ${maxBytes} bytes`);
  if (!(streamed ? value.canonical : isCanonical(value))) throw payloadError(`${field}: not valid base64 (non-canonical padding bits)`);
  if (!streamed) return Buffer.from(value, "base64");
  return value.kept ? value.bytes() : value.facts();
}
