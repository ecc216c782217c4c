import { dominantColor, hasBorder, type Raster } from "@cva/imaging";
import sharp, { type Metadata, type SharpOptions } from "sharp";
import { decoderDetail, ImageInputError } from "./errors.ts";
import { readExif, type ImageMetadataFields } from "./exif.ts";
import type { ImageFormat } from "./format.ts";
import { iccDescription } from "./icc.ts";
import { losslessReencode } from "./optimize.ts";

/**
 * The decoding half of the image measurement, run in the image worker process (worker.ts) under its OS limits: every
 * byte libvips (through sharp) and the pure-JavaScript parsers read here is the attacker's, and none of it runs in
 * the prober's own process. Input: the bytes, the format sniffed from them and what their header already passed.
 */
export interface MeasureJob {
  bytes: Uint8Array;
  format: ImageFormat;
  /** The SVG's intrinsic size (0 when it has none); other formats: unused. */
  svgWidth: number;
  svgHeight: number;
  /** Bits per sample read from the header; 0 when the decoder should say. */
  headerBitDepth: number;
  limits: MeasureLimits;
}

export interface MeasureLimits {
  /** libvips' limitInputPixels: the largest canvas decoded, whatever the header claimed. */
  maxPixels: number;
  /** The screenshot and the border/colour raster hold at most this many pixels (larger images are scaled down). */
  renderMaxPixels: number;
  /** Largest PNG image data inflated for the lossless re-encode, bytes. */
  maxRawBytes: number;
}

export interface MeasureResult {
  /** Displayed size: EXIF orientation applied, as browsers draw it (SVG: its intrinsic size). */
  width: number;
  height: number;
  bitDepth: number;
  hasAlpha: boolean;
  colorSpace: string;
  iccProfile: string;
  hasBorder: boolean;
  metadata: ImageMetadataFields;
  /** Bytes after the lossless re-encode; undefined when not measured (then `reencodeError` says why). */
  reencodedBytes?: number;
  reencodeError?: string;
  screenshot: { data: Uint8Array; mimeType: string; color: string };
}

const FORMAT_NAME: Record<ImageFormat, string> = { png: "PNG", jpeg: "JPEG", gif: "GIF", webp: "WebP", avif: "AVIF", svg: "SVG" };

/** libvips' interpretation → the report's colour space. */
function colorSpaceOf(space: string | undefined, channels: number | undefined): string {
  switch (space) {
    case "srgb":
    case "rgb16":
      return "srgb";
    case "b-w":
    case "grey16":
      return "gray";
    case "cmyk":
      return "cmyk";
    case undefined:
      return channels === 1 || channels === 2 ? "gray" : "";
    default:
      return space;
  }
}

export async function measureImage(job: MeasureJob): Promise<MeasureResult> {
  const { bytes, format, limits } = job;
  const name = FORMAT_NAME[format];
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // failOn "truncated": a cut-off file is refused (the trafficker must know); lesser decoder warnings, which browsers
  // shrug off too, are not. SVG: librsvg is given bytes with no base URL, so it resolves no external reference (no
  // network, no file); `unlimited` stays off (libxml2's size and depth limits hold).
  const base: SharpOptions = { limitInputPixels: limits.maxPixels, failOn: "truncated", sequentialRead: true };
  // An SVG is drawn at its intrinsic size, scaled down to the render budget (libvips renders it at `density`).
  let svgScale = 1;
  if (format === "svg" && job.svgWidth > 0 && job.svgHeight > 0) {
    svgScale = Math.min(1, Math.sqrt(limits.renderMaxPixels / (job.svgWidth * job.svgHeight)));
    base.density = 72 * svgScale;
  }

  let meta: Metadata;
  try {
    meta = await sharp(input, base).metadata();
  } catch (e) {
    throw decodeError(name, e);
  }

  const orientation = meta.orientation ?? 1;
  // The re-encode's inflate/deflate run on the thread pool while libvips decodes the first frame.
  const reencoding = losslessReencode(bytes, format, { maxRawBytes: limits.maxRawBytes }, orientation).then(
    (r) => (r ? { reencodedBytes: r.bytes, reencodeError: undefined } : { reencodedBytes: undefined, reencodeError: `no lossless re-encode for ${name}` }),
    (e: unknown) => ({ reencodedBytes: undefined, reencodeError: `the lossless re-encode was not measured: ${decoderDetail(e)}` }),
  );
  const width = format === "svg" ? job.svgWidth : (meta.autoOrient?.width ?? meta.width ?? 0);
  const height = format === "svg" ? job.svgHeight : (meta.autoOrient?.height ?? meta.height ?? 0);

  // The first frame as displayed: EXIF orientation applied, colour-managed to sRGB (CMYK through its profile or
  // libvips' default one), 8 bits, RGBA; scaled down to the render budget.
  let raster: Raster;
  try {
    let img = sharp(input, { ...base, pages: 1, page: 0 }).autoOrient();
    const w = meta.autoOrient?.width ?? meta.width ?? 0;
    const h = meta.autoOrient?.height ?? meta.height ?? 0;
    if (w * h > limits.renderMaxPixels) {
      const s = Math.sqrt(limits.renderMaxPixels / (w * h));
      // Linear, not Lanczos: no ringing next to a border the detector then reads.
      img = img.resize(Math.max(1, Math.floor(w * s)), Math.max(1, Math.floor(h * s)), { fit: "fill", kernel: "linear" });
    }
    const { data, info } = await img.toColourspace("srgb").ensureAlpha().raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
    raster = { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
  } catch (e) {
    throw decodeError(name, e);
  }

  // The border detector reads CSS px: an image's own pixel is one CSS px at its natural size.
  const scale = width > 0 ? raster.width / width : svgScale;
  const border = hasBorder(raster, scale);
  const color = dominantColor(raster);
  const screenshot = await encodeScreenshot(raster, format === "jpeg" || format === "avif" || (format === "webp" && !webpIsLossless(bytes)));

  const { reencodedBytes, reencodeError } = await reencoding;

  return {
    width,
    height,
    bitDepth: format === "svg" ? 0 : job.headerBitDepth || meta.bitsPerSample || (meta.depth === "ushort" ? 16 : 8),
    hasAlpha: meta.hasAlpha ?? false,
    colorSpace: colorSpaceOf(meta.space, meta.channels),
    iccProfile: iccDescription(meta.icc),
    hasBorder: border,
    metadata: readExif(meta.exif),
    reencodedBytes,
    reencodeError,
    screenshot: { ...screenshot, color },
  };
}

/**
 * The screenshot: the first frame as a browser draws it at its natural size (within the render budget). PNG where
 * transparency or exact pixels matter (transparent pixels, lossless sources); JPEG (quality 90) for an opaque photo
 * from a lossy format, where a PNG would be several times the size of the original.
 */
async function encodeScreenshot(r: Raster, lossySource: boolean): Promise<{ data: Uint8Array; mimeType: string }> {
  let transparent = false;
  for (let i = 3; i < r.data.length; i += 4) {
    if (r.data[i]! < 255) {
      transparent = true;
      break;
    }
  }
  const img = sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } });
  const out = !transparent && lossySource
    ? { data: await img.removeAlpha().jpeg({ quality: 90 }).toBuffer(), mimeType: "image/jpeg" }
    : { data: await img.png({ compressionLevel: 3 }).toBuffer(), mimeType: "image/png" };
  return { data: new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength), mimeType: out.mimeType };
}

/** Whether a WebP's (first) bitstream is lossless VP8L rather than lossy VP8; sharp does not say. */
export function webpIsLossless(b: Uint8Array): boolean {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const type = (at: number) => String.fromCharCode(...b.subarray(at, at + 4));
  for (let i = 12; i + 8 <= b.length;) {
    const t = type(i);
    const size = dv.getUint32(i + 4, true);
    if (t === "VP8L") return true;
    if (t === "VP8 ") return false;
    // An animation frame: 16 bytes of frame header, then its own ALPH/VP8/VP8L chunks.
    if (t === "ANMF") {
      for (let k = i + 24; k + 8 <= Math.min(b.length, i + 8 + size);) {
        const ft = type(k);
        if (ft === "VP8L") return true;
        if (ft === "VP8 ") return false;
        const fs = dv.getUint32(k + 4, true);
        k += 8 + fs + (fs & 1);
      }
      return false;
    }
    i += 8 + size + (size & 1);
  }
  return false;
}

function decodeError(name: string, e: unknown): ImageInputError {
  const detail = decoderDetail(e);
  if (/pixel limit/i.test(detail)) return new ImageInputError(`the ${name} is larger than the decode limit: ${detail}`);
  if (/out of memory|memory allocation|vips_tracked/i.test(detail)) return new ImageInputError(`the ${name} needs more memory to decode than its bound allows; not decoded`);
  return new ImageInputError(`the ${name} could not be decoded (corrupt or truncated): ${detail}`);
}
