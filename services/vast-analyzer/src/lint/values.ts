// Value formats of VAST and VMAP, as the specifications and the IAB XSDs define them.

/** HH:MM:SS or HH:MM:SS.mmm (VAST Duration, offsets; the XSD pattern `\d{2}:[0-5]\d:[0-5]\d(\.\d\d\d)?`). */
export const CLOCK = /^\d{2}:[0-5]\d:[0-5]\d(\.\d{3})?$/;
/** A percentage 0–100 with optional decimals (skipoffset, progress offset). */
export const PERCENT = /^(100(\.0+)?|\d{1,2}(\.\d+)?)%$/;

export function isClock(v: string): boolean {
  return CLOCK.test(v.trim());
}

export function clockSeconds(v: string): number | undefined {
  const t = v.trim();
  if (!CLOCK.test(t)) return undefined;
  const [h, m, s] = t.split(":");
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
}

/** skipoffset and progress offset: a clock value or a percentage of the duration. */
export function isOffset(v: string): boolean {
  const t = v.trim();
  return CLOCK.test(t) || PERCENT.test(t);
}

/** Seconds an offset stands for, given the duration (undefined when it cannot be told). */
export function offsetSeconds(v: string, duration: number | undefined): number | undefined {
  const t = v.trim();
  if (PERCENT.test(t)) return duration === undefined ? undefined : (duration * Number.parseFloat(t)) / 100;
  return clockSeconds(t);
}

/** xs:boolean as players read it: true, false, 1, 0. */
export function isBoolean(v: string): boolean {
  return /^(true|false|1|0)$/.test(v.trim());
}

/** A non-negative xs:integer (sizes, bitrates, sequence). */
export function isNonNegativeInteger(v: string): boolean {
  return /^\+?\d{1,10}$/.test(v.trim());
}

export function isPositiveInteger(v: string): boolean {
  return isNonNegativeInteger(v) && Number(v.trim()) > 0;
}

/** xs:decimal. */
export function isDecimal(v: string): boolean {
  return /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(v.trim());
}

/** type/subtype (RFC 6838), parameters allowed: `video/mp4`, `video/mp4; codecs="avc1.42E01E"`. */
export function isMimeType(v: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;.*)?$/.test(v.trim());
}

/** RFC 6381 codecs: `avc1.4d401f`, `mp4a.40.2`, comma-separated. */
export function isCodecList(v: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9.-]*(\s*,\s*[A-Za-z0-9][A-Za-z0-9.-]*)*$/.test(v.trim());
}

/** BCP 47 language tag (shape only): `en`, `en-US`, `zh-Hant-TW`. */
export function isLanguageTag(v: string): boolean {
  return /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v.trim());
}

/** ISO 4217 alphabetic currency code shape (the XSD pattern is `[a-zA-Z]{3}`). */
export function isCurrency(v: string): boolean {
  return /^[A-Za-z]{3}$/.test(v.trim());
}

/**
 * A URL with every macro replaced by a neutral token, so that `[CACHEBUSTING]` and `%%CB%%` do not make a well-formed
 * URL look broken; `new URL` then judges the rest.
 */
export function withoutMacros(url: string): string {
  return url
    .replace(/\[\s*[A-Za-z0-9_]{1,64}\s*\]/g, "0")
    .replace(/%%[A-Za-z0-9_:.-]{1,64}%%/g, "0")
    .replace(/\$\{[A-Za-z0-9_]{1,64}\}/g, "0")
    .replace(/\{\{[^{}\s]{1,64}\}\}/g, "0");
}

/** An absolute http(s) URL once macros are set aside. */
export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(withoutMacros(url.trim()));
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/** Host of an http(s) URL (macros set aside), lower case; undefined when it is not one. */
export function hostOf(url: string): string | undefined {
  try {
    const u = new URL(withoutMacros(url.trim()));
    return u.protocol === "http:" || u.protocol === "https:" ? u.hostname.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}
