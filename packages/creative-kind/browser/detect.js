// @ts-check
// Which scan endpoint a creative goes to, from its first bytes and its file name. The bytes win where they are
// unambiguous (a zip renamed .html is still a zip); the extension settles what the bytes cannot (an MP4 container
// holding only audio is a .m4a, an Ogg file is audio unless it is .ogv); bytes nobody recognises fall back to the
// extension, so the API, not this guess, says what is wrong with the file. The web console uses this very file
// (edge/src/console/page/app.js imports it); packages/cli/test/detect.test.ts holds it to one table.

/** @typedef {"tag" | "zip" | "vast" | "video" | "image" | "audio"} Kind */

/** How many leading bytes detectKind looks at (an MPEG transport stream needs its second sync byte at 188). */
export const HEAD_BYTES = 512;

/** @type {Record<Kind, string>} */
export const ENDPOINTS = {
  tag: "/v3/scanTag",
  zip: "/v3/scanZip",
  vast: "/v3/scanVAST",
  video: "/v3/scanVideo",
  image: "/v3/scanImage",
  audio: "/v3/scanAudio",
};

export const KINDS = /** @type {Kind[]} */ (Object.keys(ENDPOINTS));

/** @type {Record<string, Kind>} */
const BY_EXTENSION = {
  html: "tag", htm: "tag", txt: "tag",
  zip: "zip",
  mp4: "video", m4v: "video", mov: "video", webm: "video", mkv: "video", ogv: "video", avi: "video", ts: "video", mts: "video", m2ts: "video", mpg: "video", mpeg: "video", flv: "video", "3gp": "video", mxf: "video",
  png: "image", jpg: "image", jpeg: "image", gif: "image", webp: "image", avif: "image", svg: "image",
  mp3: "audio", m4a: "audio", aac: "audio", wav: "audio", ogg: "audio", oga: "audio", opus: "audio", flac: "audio", weba: "audio", mka: "audio", aif: "audio", aiff: "audio",
};

const AUDIO_CONTAINER_EXT = new Set(["m4a", "aac", "weba", "mka", "ogg", "oga", "opus"]);
const IMAGE_BRANDS = new Set(["avif", "avis", "heic", "heix", "mif1", "msf1"]);
const AUDIO_BRANDS = new Set(["M4A ", "M4B ", "M4P ", "F4A "]);

/** @param {Uint8Array} b @param {number} at @param {string} s */
const ascii = (b, at, s) => s.split("").every((c, i) => b[at + i] === c.charCodeAt(0));
/** @param {Uint8Array} b @param {number} at @param {number} n */
const text = (b, at, n) => String.fromCharCode(...b.subarray(at, at + n));

/** The lower-case extension of a file name or path ("" when there is none). */
export function extensionOf(/** @type {string} */ name) {
  const base = name.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

/** @param {Uint8Array} b @param {string} ext @returns {Kind | undefined} */
function byMagic(b, ext) {
  if (b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6) || (b[2] === 7 && b[3] === 8))) return "zip";
  if (ascii(b, 0, "\x89PNG\r\n\x1a\n") || (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) || ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a")) return "image";
  if (ascii(b, 0, "RIFF") && b.length >= 12) {
    const form = text(b, 8, 4);
    if (form === "WEBP") return "image";
    if (form === "WAVE") return "audio";
    if (form === "AVI ") return "video";
  }
  if (ascii(b, 0, "FORM") && (ascii(b, 8, "AIFF") || ascii(b, 8, "AIFC"))) return "audio";
  if (b.length >= 12 && ascii(b, 4, "ftyp")) {
    const brand = text(b, 8, 4);
    if (IMAGE_BRANDS.has(brand)) return "image";
    if (AUDIO_BRANDS.has(brand) || AUDIO_CONTAINER_EXT.has(ext)) return "audio";
    return "video";
  }
  // QuickTime files from old tools start with another top-level atom.
  if (b.length >= 8 && ["moov", "mdat", "wide", "free", "skip"].includes(text(b, 4, 4)) && ["mov", "mp4", "m4v"].includes(ext)) return "video";
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return AUDIO_CONTAINER_EXT.has(ext) ? "audio" : "video";
  if (ascii(b, 0, "OggS")) return ext === "ogv" ? "video" : "audio";
  if (ascii(b, 0, "FLV\x01")) return "video";
  if (b[0] === 0x47 && b[188] === 0x47 && (b.length <= 376 || b[376] === 0x47)) return "video";
  if (b[0] === 0 && b[1] === 0 && b[2] === 1 && (b[3] === 0xba || b[3] === 0xb3)) return "video";
  if (ascii(b, 0, "fLaC") || ascii(b, 0, "ID3")) return "audio";
  // MPEG audio frame sync (MP3: 11 set bits and a layer) or an AAC ADTS header; JPEG's FF D8 was taken above.
  if (b[0] === 0xff && b.length > 1 && (b[1] & 0xe0) === 0xe0 && (b[1] & 0x06) !== 0) return "audio";
  if (b[0] === 0xff && b.length > 1 && (b[1] & 0xf6) === 0xf0) return "audio";
  return undefined;
}

/** The first non-blank characters of a text file, lower-cased (a UTF-8 BOM skipped); "" for binary data. */
function textStart(/** @type {Uint8Array} */ b) {
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  const end = Math.min(b.length, 256);
  for (let j = i; j < end; j++) if (b[j] === 0 || (b[j] < 9)) return "";
  while (i < end && (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0a || b[i] === 0x0d)) i++;
  return String.fromCharCode(...b.subarray(i, end)).toLowerCase();
}

/**
 * The kind of a local file from its name and first bytes (at least HEAD_BYTES of them where the file has that
 * many), with why, or no kind and why not.
 * @param {string} name
 * @param {Uint8Array} head
 * @param {string} [vastHint] How the caller's user scans a VAST tag instead (a VAST document is scanned from its URL).
 * @returns {{ kind: Kind, why: string } | { kind: undefined, why: string }}
 */
export function detectKind(name, head, vastHint = "cva scan https://…/vast.xml") {
  const ext = extensionOf(name);
  if (head.length === 0) return { kind: undefined, why: `${name} is empty` };
  const magic = byMagic(head, ext);
  if (magic) return { kind: magic, why: `its bytes are ${magic === "zip" ? "a zip archive" : `a ${magic} file`}` };
  const start = textStart(head);
  if (start.startsWith("<svg") || (start.startsWith("<?xml") && start.includes("<svg")) || (ext === "svg" && start.startsWith("<"))) {
    return { kind: "image", why: "it is an SVG document" };
  }
  if (start.startsWith("<?xml") || start.startsWith("<vast")) {
    return { kind: undefined, why: `${name} looks like a VAST or XML document: a VAST tag is scanned from its URL (${vastHint})` };
  }
  const fromExt = BY_EXTENSION[ext];
  if (fromExt) return { kind: fromExt, why: `its name ends in .${ext}` };
  if (start.startsWith("<")) return { kind: "tag", why: "it is HTML" };
  return { kind: undefined, why: `cannot tell what kind of creative ${name} is from its name or its first bytes` };
}

/** An http(s) URL names a VAST tag; anything else is a local file. */
export function isVastUrl(/** @type {string} */ input) {
  return /^https?:\/\//i.test(input);
}
