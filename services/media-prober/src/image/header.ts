import { apngAnimation, gifAnimation, webpAnimation, type ImageAnimation } from "@cva/imaging";
import { ImageInputError } from "./errors.ts";
import type { ImageFormat } from "./format.ts";
import { svgFacts, type SvgFacts } from "./svg.ts";

/**
 * What an image's header says, read from its bytes by bounded loops over its chunks/markers/boxes, never by decoding a
 * pixel: the canvas size it claims, its frames and their timing (the tag scanner's readers, as Chromium plays them)
 * and the sample depth. This runs before any decoder does, so a decompression bomb — a PNG or WebP whose header claims
 * a huge canvas, a GIF with 100 000 frames — is refused here, by its own claim, for the cost of reading its header.
 */
export interface HeaderFacts {
  /** Pixels as stored (before EXIF orientation); 0 when the header does not say (an SVG without a size). */
  width: number;
  height: number;
  /** Frames in the file (1 for a still image). */
  frames: number;
  /** Timing of an animated GIF/WebP/APNG; undefined for a still image or an AVIF sequence. */
  animation?: ImageAnimation;
  /** An AVIF image sequence (brand avis): animated, but its timing is not read. */
  avifSequence: boolean;
  /** Bits per sample as stored (PNG IHDR, GIF colour-table index bits, JPEG SOF precision); 0 when the decoder says. */
  bitDepth: number;
  svg?: SvgFacts;
}

export interface HeaderLimits {
  /** Largest canvas decoded, pixels (width × height of one frame). */
  maxPixels: number;
  /** Most frames an animated image may have. */
  maxFrames: number;
}

const u16be = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const u32be = (b: Uint8Array, i: number) => ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
const u16le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const u24le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
const latin1 = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

const FORMAT_NAME: Record<ImageFormat, string> = { png: "PNG", jpeg: "JPEG", gif: "GIF", webp: "WebP", avif: "AVIF", svg: "SVG" };

export function readHeader(b: Uint8Array, format: ImageFormat): HeaderFacts {
  const base = { frames: 1, avifSequence: false, bitDepth: 0 };
  switch (format) {
    case "png": {
      if (b.length < 33 || latin1(b, 12, 4) !== "IHDR") throw new ImageInputError("the PNG has no IHDR header: truncated or corrupt");
      const animation = apngAnimation(b);
      // acTL's num_frames is the file's own claim; the fcTL count is what is there. Either over the cap refuses it.
      const claimed = acTlFrames(b);
      return { ...base, width: u32be(b, 16), height: u32be(b, 20), bitDepth: b[24]!, frames: Math.max(animation?.frames ?? 1, claimed), animation: animated(animation) };
    }
    case "gif": {
      if (b.length < 13) throw new ImageInputError("the GIF header is truncated");
      const animation = gifAnimation(b);
      const flags = b[10]!;
      // Bits per palette index: the size of the global colour table (a GIF's pixels are indices into it).
      return { ...base, width: u16le(b, 6), height: u16le(b, 8), bitDepth: flags & 0x80 ? (flags & 7) + 1 : 0, frames: animation?.frames ?? 1, animation: animated(animation) };
    }
    case "webp": {
      const size = webpCanvas(b);
      if (!size) throw new ImageInputError("the WebP header is truncated or corrupt");
      const animation = webpAnimation(b);
      return { ...base, ...size, bitDepth: 8, frames: animation?.frames ?? 1, animation: animated(animation) };
    }
    case "jpeg": {
      const sof = jpegFrame(b);
      if (!sof) throw new ImageInputError("the JPEG has no frame header (SOF) before its image data: truncated or corrupt");
      return { ...base, width: sof.width, height: sof.height, bitDepth: sof.precision };
    }
    case "avif": {
      const size = avifSize(b);
      return { ...base, width: size?.width ?? 0, height: size?.height ?? 0, avifSequence: avifIsSequence(b) };
    }
    case "svg": {
      const svg = svgFacts(b);
      return { ...base, width: svg.width, height: svg.height, svg };
    }
  }
}

/** Refuses a header whose claims are over the limits, before anything is decoded. */
export function checkHeader(h: HeaderFacts, format: ImageFormat, limits: HeaderLimits): void {
  const name = FORMAT_NAME[format];
  if (format !== "svg" && format !== "avif" && (h.width === 0 || h.height === 0)) {
    throw new ImageInputError(`the ${name} header gives a size of ${h.width}x${h.height}: not an image that can be shown`);
  }
  // An SVG is drawn at whatever size it is given: its claimed size is scaled to the render budget, never refused.
  if (format !== "svg" && h.width * h.height > limits.maxPixels) {
    throw new ImageInputError(
      `the ${name} header claims ${h.width}x${h.height} (${h.width * h.height} pixels), over the limit of ${limits.maxPixels} pixels; not decoded`,
    );
  }
  if (h.frames > limits.maxFrames) {
    throw new ImageInputError(`the ${name} has ${h.frames} frames, over the limit of ${limits.maxFrames}; not decoded`);
  }
}

const animated = (a: ImageAnimation | undefined) => (a && a.frames > 1 ? a : undefined);

function acTlFrames(b: Uint8Array): number {
  for (let i = 8; i + 12 <= b.length;) {
    const size = u32be(b, i);
    const type = latin1(b, i + 4, 4);
    if (type === "acTL" && size >= 8 && i + 16 <= b.length) return u32be(b, i + 8);
    if (type === "IDAT" || type === "IEND") return 0; // acTL must come before the image data
    i += 12 + size;
  }
  return 0;
}

/** WebP canvas: VP8X (extended: the canvas of every frame), else the one bitstream's own size. */
function webpCanvas(b: Uint8Array): { width: number; height: number } | undefined {
  if (b.length < 30) return undefined;
  const chunk = latin1(b, 12, 4);
  if (chunk === "VP8X") return { width: 1 + u24le(b, 24), height: 1 + u24le(b, 27) };
  if (chunk === "VP8 ") return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  if (chunk === "VP8L" && b[20] === 0x2f) {
    const bits = (b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)) >>> 0;
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  return undefined;
}

/** The JPEG's first frame header (SOFn): size, sample precision, component count. */
export function jpegFrame(b: Uint8Array): { width: number; height: number; precision: number; components: number } | undefined {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return undefined; // image data (or the end) before any frame header
    const len = u16be(b, i + 2);
    const sof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (sof) {
      if (i + 10 > b.length) return undefined;
      return { precision: b[i + 4]!, height: u16be(b, i + 5), width: u16be(b, i + 7), components: b[i + 9]! };
    }
    if (len < 2) return undefined;
    i += 2 + len;
  }
  return undefined;
}

/** ISO-BMFF boxes inside [start, end): type, payload start, end. Sizes 0 (to the end) and 1 (64-bit) honoured. */
function* boxes(b: Uint8Array, start: number, end: number): Generator<{ type: string; body: number; end: number }> {
  let i = start;
  while (i + 8 <= end) {
    let size = u32be(b, i);
    let header = 8;
    if (size === 1) {
      if (i + 16 > end) return;
      const hi = u32be(b, i + 8);
      if (hi !== 0) return; // a box over 4 GiB in a file of at most a few MB: corrupt
      size = u32be(b, i + 12);
      header = 16;
    } else if (size === 0) size = end - i;
    if (size < header || i + size > end) return;
    yield { type: latin1(b, i + 4, 4), body: i + header, end: i + size };
    i += size;
  }
}

/** The largest `ispe` (image spatial extent) in meta/iprp/ipco: the primary image's size (thumbnails are smaller). */
function avifSize(b: Uint8Array): { width: number; height: number } | undefined {
  let best: { width: number; height: number } | undefined;
  for (const top of boxes(b, 0, b.length)) {
    if (top.type !== "meta") continue;
    // meta is a full box: 4 bytes of version and flags before its children.
    for (const m of boxes(b, top.body + 4, top.end)) {
      if (m.type !== "iprp") continue;
      for (const p of boxes(b, m.body, m.end)) {
        if (p.type !== "ipco") continue;
        for (const prop of boxes(b, p.body, p.end)) {
          if (prop.type !== "ispe" || prop.body + 12 > prop.end) continue;
          const width = u32be(b, prop.body + 4);
          const height = u32be(b, prop.body + 8);
          if (!best || width * height > best.width * best.height) best = { width, height };
        }
      }
    }
  }
  return best;
}

function avifIsSequence(b: Uint8Array): boolean {
  for (const top of boxes(b, 0, Math.min(b.length, 4096))) {
    if (top.type !== "ftyp") continue;
    if (latin1(b, top.body, 4) === "avis") return true;
    for (let i = top.body + 8; i + 4 <= top.end; i += 4) if (latin1(b, i, 4) === "avis") return true;
  }
  return false;
}
