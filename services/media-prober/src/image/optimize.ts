import { promisify } from "node:util";
import { deflate, inflate, type ZlibOptions } from "node:zlib";
import type { ImageFormat } from "./format.ts";

/**
 * How small a lossless re-encode makes the file: every pixel drawn exactly as before, only bytes a browser does not
 * need dropped and the compressed data packed better. `optimized` is false when this saves more than 5 % (issue 19
 * §3). Per format, what "lossless" can honestly do here:
 * - PNG (and APNG): the chunks a browser does not draw with (text, EXIF, time, physical size, background, histograms)
 *   dropped; the image data re-filtered (per row the filter with the smallest sum of absolute differences — none for
 *   palette and sub-byte images — as libpng's heuristic) and deflated again at level 9. A file an optimiser made
 *   with better choices comes out smaller than this re-encode: no saving, optimized. APNG's later frames (fdAT) are
 *   kept as they are; interlaced images keep their own filters.
 * - JPEG: the segments a browser does not draw with (EXIF, XMP, IPTC/Photoshop, comments, MPF with the extra images
 *   after the end-of-image marker) dropped; ICC profile, Adobe (colour transform) and JFIF kept, and a minimal EXIF
 *   orientation tag counted back in when the image is rotated by one. Huffman-table optimisation is not computed, so
 *   the measure errs towards "optimized" for JPEGs saved without it.
 * - GIF: comments, plain-text blocks (no browser draws them) and application blocks other than the loop count
 *   dropped, as are bytes after the trailer; the LZW data is kept.
 * - WebP: EXIF, XMP and unknown chunks dropped; the bitstreams kept.
 * - SVG: comments, <metadata>, editor data (Inkscape/Sodipodi elements and attributes) and whitespace between tags
 *   outside text, style and script dropped.
 * - AVIF: not measured (its metadata lives in HEIF items; no lossless AV1 repacking here).
 */
export interface Reencode {
  /** Bytes after the lossless re-encode. */
  bytes: number;
}

export interface ReencodeLimits {
  /** Largest PNG image data inflated for the re-encode, bytes of raw scanlines; a larger PNG is not measured. */
  maxRawBytes: number;
}

export const SAVING_THRESHOLD = 0.05;

const inflateAsync = promisify<Buffer, ZlibOptions, Buffer>(inflate);
const deflateAsync = promisify<Buffer, ZlibOptions, Buffer>(deflate);

export async function losslessReencode(b: Uint8Array, format: ImageFormat, limits: ReencodeLimits, orientation = 1): Promise<Reencode | undefined> {
  switch (format) {
    case "png":
      return { bytes: await reencodePng(b, limits) };
    case "jpeg":
      return { bytes: strippedJpeg(b, orientation) };
    case "gif":
      return { bytes: strippedGif(b) };
    case "webp":
      return { bytes: strippedWebp(b) };
    case "svg":
      return { bytes: minifiedSvg(b) };
    case "avif":
      return undefined;
  }
}

// ---- PNG ---------------------------------------------------------------------------------------------------------

/** Chunks needed to draw the image exactly as before (APNG's included); every other chunk is metadata. */
const PNG_DRAWING = new Set(["IHDR", "PLTE", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "cICP", "sBIT", "IDAT", "IEND", "acTL", "fcTL", "fdAT"]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export async function reencodePng(data: Uint8Array, limits: ReencodeLimits): Promise<number> {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let kept = 8; // signature
  const idat: Buffer[] = [];
  let ihdr: Buffer | undefined;
  for (let i = 8; i + 12 <= b.length;) {
    const len = b.readUInt32BE(i);
    const type = b.toString("latin1", i + 4, i + 8);
    if (i + 12 + len > b.length) throw new Error("truncated PNG chunk");
    const body = b.subarray(i + 8, i + 8 + len);
    if (type === "IHDR") ihdr = body;
    if (type === "IDAT") idat.push(body);
    else if (PNG_DRAWING.has(type)) kept += 12 + len;
    i += 12 + len;
    if (type === "IEND") break;
  }
  if (!ihdr || ihdr.length < 13 || idat.length === 0) throw new Error("PNG without IHDR or image data");
  const width = ihdr.readUInt32BE(0), height = ihdr.readUInt32BE(4);
  const depth = ihdr[8]!, colorType = ihdr[9]!, interlaced = ihdr[12] === 1;
  const channels = CHANNELS[colorType];
  if (!channels) throw new Error(`PNG colour type ${colorType} is not defined`);
  const rowBytes = Math.ceil((width * channels * depth) / 8);
  const expected = interlaced ? adam7Bytes(width, height, channels, depth) : height * (rowBytes + 1);
  if (expected > limits.maxRawBytes) throw new Error(`its image data (${expected} bytes raw) is over the re-encode limit of ${limits.maxRawBytes} bytes`);
  // The inflated size is known from the header: a zlib bomb in IDAT stops at it.
  const raw = await inflateAsync(Buffer.concat(idat), { maxOutputLength: expected + 1 });
  // Interlaced rows are not re-filtered (their passes have rows of other lengths): their own filters are re-packed.
  const filtered = !interlaced && raw.length === expected ? refilter(raw, height, rowBytes, Math.max(1, Math.ceil((channels * depth) / 8)), colorType === 3 || depth < 8) : raw;
  // Deflated on the thread pool, beside the decode work of the same image.
  const packed = await deflateAsync(filtered ?? raw, { level: 9, memLevel: 9 });
  return kept + 12 + packed.length; // one IDAT chunk
}

function adam7Bytes(w: number, h: number, channels: number, depth: number): number {
  const passes: Array<[number, number, number, number]> = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];
  let total = 0;
  for (const [x0, y0, dx, dy] of passes) {
    const pw = Math.ceil((w - x0) / dx), ph = Math.ceil((h - y0) / dy);
    if (pw > 0 && ph > 0) total += ph * (Math.ceil((pw * channels * depth) / 8) + 1);
  }
  return total;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Sum of the residuals as signed bytes: libpng's "minimum sum of absolute differences" measure. */
function cost(r: Uint8Array): number {
  let sum = 0;
  for (let x = 0; x < r.length; x++) {
    const v = r[x]!;
    sum += v < 128 ? v : 256 - v;
  }
  return sum;
}

/**
 * Unfilters every row, then filters it again: none for palette and sub-byte images (libpng's advice), else whichever
 * of the five filters gives the smallest sum of absolute residuals. Undefined for a row with an unknown filter type.
 */
function refilter(raw: Buffer, height: number, rowBytes: number, bpp: number, noneOnly: boolean): Buffer | undefined {
  const stride = rowBytes + 1;
  const out = Buffer.alloc(raw.length);
  let prev = new Uint8Array(rowBytes);
  let cur = new Uint8Array(rowBytes);
  const cand = [0, 1, 2, 3, 4].map(() => new Uint8Array(rowBytes));
  for (let y = 0; y < height; y++) {
    const f = raw[y * stride]!;
    const src = raw.subarray(y * stride + 1, (y + 1) * stride);
    // Unfilter, one loop per filter type.
    if (f === 0) cur.set(src);
    else if (f === 1) for (let x = 0; x < rowBytes; x++) cur[x] = (src[x]! + (x >= bpp ? cur[x - bpp]! : 0)) & 255;
    else if (f === 2) for (let x = 0; x < rowBytes; x++) cur[x] = (src[x]! + prev[x]!) & 255;
    else if (f === 3) for (let x = 0; x < rowBytes; x++) cur[x] = (src[x]! + (((x >= bpp ? cur[x - bpp]! : 0) + prev[x]!) >> 1)) & 255;
    else if (f === 4) for (let x = 0; x < rowBytes; x++) cur[x] = (src[x]! + paeth(x >= bpp ? cur[x - bpp]! : 0, prev[x]!, x >= bpp ? prev[x - bpp]! : 0)) & 255;
    else return undefined;
    let best = 0;
    if (!noneOnly) {
      const [sub, up, avg, pae] = [cand[1]!, cand[2]!, cand[3]!, cand[4]!];
      for (let x = 0; x < rowBytes; x++) {
        const a = x >= bpp ? cur[x - bpp]! : 0, u = prev[x]!, c = x >= bpp ? prev[x - bpp]! : 0, v = cur[x]!;
        sub[x] = (v - a) & 255;
        up[x] = (v - u) & 255;
        avg[x] = (v - ((a + u) >> 1)) & 255;
        pae[x] = (v - paeth(a, u, c)) & 255;
      }
      let bestCost = cost(cur);
      for (let t = 1; t < 5; t++) {
        const c = cost(cand[t]!);
        if (c < bestCost) {
          bestCost = c;
          best = t;
        }
      }
    }
    out[y * stride] = best;
    out.set(best === 0 ? cur : cand[best]!, y * stride + 1);
    [prev, cur] = [cur, prev];
  }
  return out;
}

// ---- JPEG --------------------------------------------------------------------------------------------------------

/** APP1 "Exif\0\0" + TIFF header + one IFD entry (Orientation) + next-IFD offset. */
const MIN_ORIENTATION_EXIF = 2 + 2 + 6 + 8 + 2 + 12 + 4;

export function strippedJpeg(b: Uint8Array, orientation = 1): number {
  let dropped = 0;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) break;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break; // the image data starts: metadata before it is what editors write
    const len = (b[i + 2]! << 8) | b[i + 3]!;
    const id = String.fromCharCode(...b.subarray(i + 4, i + 4 + Math.min(12, Math.max(0, len - 2))));
    const keep =
      (marker === 0xe0 && id.startsWith("JFIF\0")) || (marker === 0xe2 && id.startsWith("ICC_PROFILE\0")) || (marker === 0xee && id.startsWith("Adobe")) ||
      !((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe);
    if (!keep) dropped += 2 + len;
    i += 2 + len;
  }
  // Whatever follows the last end-of-image marker (MPF's extra images, an editor's trailer) is never drawn.
  const eoi = Buffer.from(b.buffer, b.byteOffset, b.byteLength).lastIndexOf(Buffer.from([0xff, 0xd9]));
  if (eoi > 0) dropped += b.length - (eoi + 2);
  if (orientation !== 1 && dropped > 0) dropped = Math.max(0, dropped - MIN_ORIENTATION_EXIF);
  return b.length - dropped;
}

// ---- GIF ---------------------------------------------------------------------------------------------------------

export function strippedGif(b: Uint8Array): number {
  if (b.length < 13) return b.length;
  let i = 13;
  const flags = b[10]!;
  if (flags & 0x80) i += 3 * (1 << ((flags & 7) + 1));
  let dropped = 0;
  const subBlocksEnd = (from: number) => {
    let k = from;
    while (k < b.length) {
      const n = b[k]!;
      k += 1 + n;
      if (n === 0) break;
    }
    return Math.min(k, b.length);
  };
  while (i < b.length) {
    const block = b[i]!;
    if (block === 0x3b) {
      dropped += b.length - (i + 1);
      break;
    }
    if (block === 0x21) {
      const label = b[i + 1]!;
      const end = subBlocksEnd(i + 2);
      let drop = label === 0xfe || label === 0x01;
      if (label === 0xff) {
        const app = String.fromCharCode(...b.subarray(i + 3, i + 14));
        drop = app !== "NETSCAPE2.0" && app !== "ANIMEXTS1.0";
      }
      if (drop) dropped += end - i;
      i = end;
    } else if (block === 0x2c) {
      if (i + 10 > b.length) break;
      const lflags = b[i + 9]!;
      i += 10;
      if (lflags & 0x80) i += 3 * (1 << ((lflags & 7) + 1));
      i = subBlocksEnd(i + 1);
    } else break;
  }
  return b.length - dropped;
}

// ---- WebP --------------------------------------------------------------------------------------------------------

const WEBP_DRAWING = new Set(["VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", "ANMF", "ICCP"]);

export function strippedWebp(b: Uint8Array): number {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let dropped = 0;
  for (let i = 12; i + 8 <= b.length;) {
    const type = String.fromCharCode(...b.subarray(i, i + 4));
    const size = dv.getUint32(i + 4, true);
    const total = 8 + size + (size & 1);
    if (!WEBP_DRAWING.has(type)) dropped += Math.min(total, b.length - i);
    i += total;
  }
  return b.length - dropped;
}

// ---- SVG ---------------------------------------------------------------------------------------------------------

/** Namespaces of editor data (Inkscape, Sodipodi, Sketch, Illustrator's i: and x:, Affinity, Figma, Krita). */
const EDITOR = /^(inkscape|sodipodi|sketch|i|x|serif|figma|krita):/i;
const EDITOR_NS = /^xmlns:(inkscape|sodipodi|sketch|i|x|serif|figma|krita)$/i;
/** Elements whose whitespace is content (or may be). */
const SPACE_KEPT = new Set(["text", "textpath", "tspan", "style", "script", "title", "desc"]);

/**
 * Bytes of the SVG with what is never drawn removed. A linear scan with indexOf (no regular expression runs over
 * the whole file): a hostile SVG of repeated "<!--" costs one pass.
 */
export function minifiedSvg(b: Uint8Array): number {
  const s = new TextDecoder("utf-8").decode(b);
  let kept = 0;
  const keep = (piece: string) => (kept += Buffer.byteLength(piece));
  let i = 0;
  let spaceDepth = 0; // inside an element whose whitespace is kept
  let skipping: string | undefined; // inside <metadata> or an editor element: everything until its end tag
  while (i < s.length) {
    const lt = s.indexOf("<", i);
    const textEnd = lt < 0 ? s.length : lt;
    if (textEnd > i) {
      const text = s.slice(i, textEnd);
      if (!skipping && (spaceDepth > 0 || text.trim() !== "")) keep(text);
      i = textEnd;
      continue;
    }
    if (s.startsWith("<!--", i)) {
      const end = s.indexOf("-->", i + 4);
      i = end < 0 ? s.length : end + 3;
      continue;
    }
    if (s.startsWith("<![CDATA[", i)) {
      const end = s.indexOf("]]>", i);
      const stop = end < 0 ? s.length : end + 3;
      if (!skipping) keep(s.slice(i, stop));
      i = stop;
      continue;
    }
    const gt = s.indexOf(">", i);
    const stop = gt < 0 ? s.length : gt + 1;
    const tag = s.slice(i, stop);
    i = stop;
    const m = /^<(\/?)([^\s/>]+)/.exec(tag);
    const name = (m?.[2] ?? "").toLowerCase();
    const closing = m?.[1] === "/";
    const selfClosing = tag.endsWith("/>");
    if (skipping) {
      if (closing && name === skipping) skipping = undefined;
      continue;
    }
    if (!closing && (name === "metadata" || EDITOR.test(name))) {
      if (!selfClosing) skipping = name;
      continue;
    }
    if (closing && (name === "metadata" || EDITOR.test(name))) continue;
    if (SPACE_KEPT.has(name) && !selfClosing) spaceDepth = closing ? Math.max(0, spaceDepth - 1) : spaceDepth + 1;
    keep(tag.replace(/\s+([^\s=/>]+)\s*=\s*("[^"]*"|'[^']*')/g, (all, attr: string) => (EDITOR.test(attr) || EDITOR_NS.test(attr) ? "" : all)));
  }
  return Math.min(b.length, kept);
}
