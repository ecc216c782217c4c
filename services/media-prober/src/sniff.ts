/**
 * Looks at the first bytes of a download before any ffmpeg code sees it. Playlists and manifests are refused here
 * because ffmpeg would follow them (segments, other files); documents and images are refused because a VAST media
 * file that is one is a misconfiguration worth naming precisely. Whatever passes is still only accepted when ffprobe,
 * restricted to a list of media demuxers, recognises audio or video in it.
 */
export type Sniff = { media: true; hint: string } | { media: false; reason: string };

/** Bytes to read from the start of the file for sniffing. */
export const SNIFF_BYTES = 4096;

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);
const ascii = (b: Uint8Array, s: string, at = 0) => startsWith(b, [...s].map((c) => c.charCodeAt(0)), at);

export function sniffMedia(head: Uint8Array, fileSize: number): Sniff {
  if (fileSize === 0) return { media: false, reason: "empty file" };

  // Binary media signatures first: a text test on them would be meaningless.
  if (ascii(head, "ftyp", 4)) return { media: true, hint: "isobmff" };
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return { media: true, hint: "ebml" };
  if (ascii(head, "OggS")) return { media: true, hint: "ogg" };
  if (ascii(head, "ID3") || (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0)) return { media: true, hint: "mpeg-audio" };
  if (ascii(head, "RIFF") && (ascii(head, "WAVE", 8) || ascii(head, "AVI ", 8))) return { media: true, hint: "riff" };
  if (ascii(head, "FLV")) return { media: true, hint: "flv" };
  if (ascii(head, "fLaC")) return { media: true, hint: "flac" };
  if (startsWith(head, [0x30, 0x26, 0xb2, 0x75])) return { media: true, hint: "asf" };

  // Images and other non-media binaries.
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47])) return { media: false, reason: "PNG image" };
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { media: false, reason: "JPEG image" };
  if (ascii(head, "GIF8")) return { media: false, reason: "GIF image" };
  if (ascii(head, "RIFF") && ascii(head, "WEBP", 8)) return { media: false, reason: "WebP image" };
  if (ascii(head, "PK\u0003\u0004")) return { media: false, reason: "zip archive" };
  if (ascii(head, "%PDF")) return { media: false, reason: "PDF document" };

  const text = leadingText(head);
  if (text !== undefined) {
    const t = text.slice(0, 2048);
    const lower = t.toLowerCase();
    if (t.startsWith("#EXTM3U")) return { media: false, reason: "HLS playlist (not followed)" };
    if (/<mpd[\s>]/i.test(t)) return { media: false, reason: "DASH manifest (not followed)" };
    if (/^<!doctype html|<html[\s>]|<head[\s>]|<body[\s>]|<script[\s>]/i.test(lower)) return { media: false, reason: "HTML document" };
    if (/<vast[\s>]/i.test(t)) return { media: false, reason: "VAST XML document" };
    if (/<svg[\s>]/i.test(t)) return { media: false, reason: "SVG image" };
    if (t.startsWith("<")) return { media: false, reason: "XML document" };
    if (t.startsWith("{") || t.startsWith("[")) return { media: false, reason: "JSON document" };
  }
  // MPEG-TS (sync byte every 188 bytes) and anything else unknown: ffprobe decides.
  if (head[0] === 0x47 && head[188] === 0x47) return { media: true, hint: "mpegts" };
  if (text !== undefined) return { media: false, reason: "text file" };
  return { media: true, hint: "unknown" };
}

/**
 * The head as text when it looks like text (UTF-8, no NULs or other control bytes besides whitespace), with a BOM and
 * leading whitespace removed; undefined for binary data.
 */
function leadingText(head: Uint8Array): string | undefined {
  for (const b of head) {
    if (b === 0 || (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c)) return undefined;
  }
  let s: string;
  try {
    // A multi-byte character cut at the end of the head must not make text look binary.
    s = new TextDecoder("utf-8", { fatal: true }).decode(trimPartialUtf8(head));
  } catch {
    return undefined;
  }
  return s.replace(/^\uFEFF/, "").trimStart();
}

function trimPartialUtf8(b: Uint8Array): Uint8Array {
  let end = b.length;
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const c = b[end - i]!;
    if ((c & 0xc0) === 0x80) continue; // continuation byte
    if ((c & 0xc0) === 0xc0) end -= i; // a lead byte whose sequence may be incomplete: drop it and its tail
    break;
  }
  return b.subarray(0, end);
}
