import { deflateSync, inflateSync } from "node:zlib";
import jpeg from "jpeg-js";
import { imageSize } from "./image-size.ts";

// Image optimisation: an image is unoptimised when re-encoding it at the same quality makes it more than 10 % smaller
// (the spec set's threshold). "Same quality" per format:
//  - PNG is lossless: its pixel data (IDAT, with the filters its encoder chose) is deflated again at level 9 and the
//    chunks a browser does not need to draw it (text, EXIF, timestamps) are dropped. A PNG saved with fast or no
//    compression, or carrying an editor's metadata, shrinks; one from an optimiser does not.
//  - JPEG: decoded and encoded again at its own quality (estimated from its luminance quantisation table, IJG scale)
//    with standard Huffman tables and no metadata. A JPEG carrying a large EXIF/ICC/thumbnail or saved at a needlessly
//    high quality setting shrinks; an optimised one does not (jpeg-js's encoder does not optimise Huffman codes, so
//    the check errs towards "optimised").
//  - GIF, SVG, WebP are not re-encoded (no encoder here); they are not listed.

export interface ImageCheck {
  name: string;
  bytes: number;
  width: number;
  height: number;
  /** 0 when not checked; then `error` says why. */
  reencodedBytes: number;
  error: string;
}

export interface ImageCheckLimits {
  /** Images larger than this many pixels are not decoded (memory, time). */
  maxPixels: number;
  /** Images checked at most per zip. */
  maxImages: number;
}

export const DEFAULT_IMAGE_CHECK_LIMITS: ImageCheckLimits = { maxPixels: 4_000_000, maxImages: 60 };

// Chunks needed to draw a PNG exactly as before; the others are metadata.
const DRAWING_CHUNKS = new Set(["IHDR", "PLTE", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "IDAT", "IEND", "acTL", "fcTL", "fdAT"]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const byte of b) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The PNG re-encoded losslessly (IDAT deflated at level 9, metadata chunks dropped); its byte length. */
export function reencodePng(data: Uint8Array): number {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const out: Buffer[] = [b.subarray(0, 8)];
  const idat: Buffer[] = [];
  let i = 8;
  let idatWritten = false;
  while (i + 12 <= b.length) {
    const len = b.readUInt32BE(i);
    const type = b.toString("latin1", i + 4, i + 8);
    if (i + 12 + len > b.length) throw new Error("truncated PNG");
    const body = b.subarray(i + 8, i + 8 + len);
    if (type === "IDAT") idat.push(body);
    else {
      if (idat.length > 0 && !idatWritten) {
        out.push(chunk("IDAT", deflateSync(inflateSync(Buffer.concat(idat)), { level: 9, memLevel: 9 })));
        idatWritten = true;
      }
      if (DRAWING_CHUNKS.has(type)) out.push(b.subarray(i, i + 12 + len));
    }
    i += 12 + len;
    if (type === "IEND") break;
  }
  if (!idatWritten) throw new Error("no image data");
  return Buffer.concat(out).length;
}

// IJG's standard luminance table (natural order); a file's table is this one scaled by its quality.
const STD_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
  18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const STD_SUM = STD_LUMA.reduce((a, v) => a + v, 0);

/** The IJG quality (1-100) a JPEG's first quantisation table corresponds to; undefined when it has none. */
export function jpegQuality(data: Uint8Array): number | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let i = 2;
  while (i + 4 < b.length && b[i] === 0xff) {
    const marker = b[i + 1]!;
    const len = b.readUInt16BE(i + 2);
    if (marker === 0xdb) {
      const precision = b[i + 4]! >> 4;
      const values = Array.from({ length: 64 }, (_, k) => (precision ? b.readUInt16BE(i + 5 + 2 * k) : b[i + 5 + k]!));
      // Sums are order-free, so the zigzag order of the file's table does not matter.
      const scale = (values.reduce((a, v) => a + v, 0) * 100) / STD_SUM;
      const q = scale <= 100 ? (200 - scale) / 2 : 5000 / scale;
      return Math.max(1, Math.min(100, Math.round(q)));
    }
    if (marker === 0xda) break;
    i += 2 + len;
  }
  return undefined;
}

export function reencodeJpeg(data: Uint8Array): number {
  const quality = jpegQuality(data);
  if (quality === undefined) throw new Error("no quantisation table");
  const img = jpeg.decode(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { useTArray: true, maxResolutionInMP: 20, maxMemoryUsageInMB: 256 });
  return jpeg.encode({ data: img.data, width: img.width, height: img.height }, quality).data.length;
}

/** Re-encodes every PNG and JPEG (yielding to the event loop between images: other scans share this process). */
export async function checkImages(files: ReadonlyArray<{ name: string; data: Uint8Array }>, limits: ImageCheckLimits = DEFAULT_IMAGE_CHECK_LIMITS, signal?: AbortSignal): Promise<ImageCheck[]> {
  const out: ImageCheck[] = [];
  for (const f of files) {
    const size = imageSize(f.data);
    if (!size || (size.format !== "png" && size.format !== "jpeg")) continue;
    const check: ImageCheck = { name: f.name, bytes: f.data.length, width: size.width, height: size.height, reencodedBytes: 0, error: "" };
    out.push(check);
    if (signal?.aborted) check.error = "not checked: the scan ran out of time";
    else if (out.length > limits.maxImages) check.error = `not checked: more than ${limits.maxImages} images`;
    else if (size.width * size.height > limits.maxPixels) check.error = `not checked: larger than ${limits.maxPixels} pixels`;
    else {
      try {
        check.reencodedBytes = size.format === "png" ? reencodePng(f.data) : reencodeJpeg(f.data);
      } catch (err) {
        check.error = `not checked: the ${size.format.toUpperCase()} could not be decoded (${err instanceof Error ? err.message.slice(0, 100) : "error"})`;
      }
    }
    await new Promise((r) => setImmediate(r));
  }
  return out;
}
