/**
 * What an image file is, from its first bytes, before any decoder sees it: the six formats browsers show in display
 * ads (PNG, JPEG, GIF, WebP, AVIF, SVG) pass; anything else is named precisely ("not an image: the file is a zip
 * archive", "unsupported image format: TIFF") so the trafficker knows what went wrong. The name and declared type of
 * the upload are never trusted: a zip or a page renamed .png is caught here.
 */
export type ImageFormat = "png" | "jpeg" | "gif" | "webp" | "avif" | "svg";

export const IMAGE_MIME: Readonly<Record<ImageFormat, string>> = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  svg: "image/svg+xml",
};

export const ACCEPTED = "PNG, JPEG, GIF, WebP, AVIF and SVG";

export type ImageSniff = { ok: true; format: ImageFormat } | { ok: false; message: string };

const startsWith = (b: Uint8Array, sig: number[], at = 0) => b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);
const ascii = (b: Uint8Array, s: string, at = 0) => startsWith(b, [...s].map((c) => c.charCodeAt(0)), at);
const latin1 = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

const notImage = (what: string): ImageSniff => ({ ok: false, message: `not an image: the file is ${what}` });
const unsupported = (what: string): ImageSniff => ({
  ok: false,
  message: `unsupported image format: ${what} (scanImage accepts ${ACCEPTED})`,
});

/** HEIF brands that are AVIF (still: avif, sequence: avis); the others are HEIC/HEIF, which browsers do not show. */
const AVIF_BRANDS = new Set(["avif", "avis"]);
const HEIF_BRANDS = new Set(["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"]);

/** The ISO-BMFF `ftyp` brands: major first, then the compatible ones. */
export function ftypBrands(b: Uint8Array): string[] {
  if (b.length < 16 || !ascii(b, "ftyp", 4)) return [];
  const size = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  const end = Math.min(b.length, Math.max(16, size), 4096);
  const brands = [latin1(b, 8, 4)];
  for (let i = 16; i + 4 <= end; i += 4) brands.push(latin1(b, i, 4));
  return brands;
}

export function sniffImage(b: Uint8Array): ImageSniff {
  if (b.length === 0) return { ok: false, message: "empty file" };
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { ok: true, format: "png" };
  if (startsWith(b, [0xff, 0xd8, 0xff])) return { ok: true, format: "jpeg" };
  if (ascii(b, "GIF87a") || ascii(b, "GIF89a")) return { ok: true, format: "gif" };
  if (ascii(b, "RIFF") && ascii(b, "WEBP", 8)) return { ok: true, format: "webp" };
  const brands = ftypBrands(b);
  if (brands.length > 0) {
    if (brands.some((x) => AVIF_BRANDS.has(x))) return { ok: true, format: "avif" };
    if (brands.some((x) => HEIF_BRANDS.has(x))) return unsupported("HEIC/HEIF");
    return notImage(`a video or audio file (ISO BMFF brand "${brands[0]!.replace(/[^\x20-\x7e]/g, "?")}")`);
  }

  // Other binaries people upload by mistake, named so the answer is useful.
  if (ascii(b, "PK\u0003\u0004") || ascii(b, "PK\u0005\u0006")) return notImage("a zip archive");
  if (ascii(b, "%PDF")) return notImage("a PDF document");
  if (startsWith(b, [0x1f, 0x8b])) return notImage("gzip-compressed (an .svgz is shown by browsers only when served with Content-Encoding: gzip; upload the .svg)");
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) return notImage("a WebM/Matroska video");
  if (ascii(b, "RIFF")) return notImage(`a RIFF file (${latin1(b, 8, 4).replace(/[^\x20-\x7e]/g, "?")}), not a WebP image`);
  if (ascii(b, "OggS") || ascii(b, "ID3") || ascii(b, "fLaC")) return notImage("an audio file");
  if (ascii(b, "II*\u0000") || ascii(b, "MM\u0000*")) return unsupported("TIFF");
  if (ascii(b, "BM")) return unsupported("BMP");
  if (startsWith(b, [0, 0, 1, 0]) || startsWith(b, [0, 0, 2, 0])) return unsupported("ICO/CUR");
  if (startsWith(b, [0xff, 0x0a]) || ascii(b, "\u0000\u0000\u0000\u000cJXL \r\n\u0087\n")) return unsupported("JPEG XL");
  if (ascii(b, "8BPS")) return unsupported("Photoshop PSD");
  if (startsWith(b, [0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50])) return unsupported("JPEG 2000");

  const text = leadingText(b.subarray(0, 4096));
  if (text === undefined) return notImage("not in a recognised image format");
  const head = skipProlog(text);
  if (/^<svg[\s>/]/i.test(head)) return { ok: true, format: "svg" };
  const lower = text.slice(0, 2048).toLowerCase();
  if (/^<!doctype html|<html[\s>]|<head[\s>]|<body[\s>]|<script[\s>]|<div[\s>]/.test(lower)) return notImage("an HTML document");
  if (head.startsWith("<")) return notImage("an XML document whose root is not <svg>");
  if (head.startsWith("{") || head.startsWith("[")) return notImage("a JSON document");
  return notImage("a text file");
}

/** The text after an XML declaration, comments, processing instructions and a DOCTYPE: where the root starts. */
export function skipProlog(text: string): string {
  let s = text.trimStart();
  for (;;) {
    const m = /^(<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>)\s*/i.exec(s);
    if (!m) return s;
    s = s.slice(m[0].length);
  }
}

/** The head as text when it is UTF-8 without control bytes other than whitespace (BOM removed); else undefined. */
function leadingText(head: Uint8Array): string | undefined {
  for (const c of head) if (c === 0 || (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c)) return undefined;
  let end = head.length;
  // A multi-byte character cut at the end of the head must not make text look binary.
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const c = head[end - i]!;
    if ((c & 0xc0) === 0x80) continue;
    if ((c & 0xc0) === 0xc0) end -= i;
    break;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, end)).replace(/^\uFEFF/, "");
  } catch {
    return undefined;
  }
}
