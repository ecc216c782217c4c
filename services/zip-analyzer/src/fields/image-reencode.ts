import { deflateSync, inflateSync } from "node:zlib";
import jpeg from "jpeg-js";

// Re-encoding one image at its own quality (image-optimization.ts says why and what "same quality" is per format).
// Synchronous and run on the image worker thread (image-worker.ts): every byte it allocates is bounded by what the
// image's header declares *and* by an absolute cap, because the bytes come from the creative — a 300 KB IDAT can
// inflate to 300 MB.

export interface ReencodeBudget {
  /** The largest pixel count decoded (checked on the header before the worker is asked, again here). */
  maxPixels: number;
  /** Absolute cap on a PNG's inflated pixel data, whatever its header declares. */
  maxInflatedBytes: number;
  /** jpeg-js's own allocation bound for one decode. */
  maxJpegMemoryMb: number;
}

export class ImageRefused extends Error {
  override name = "ImageRefused";
}

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

// Samples per pixel by colour type, and the bit depths each allows (PNG spec, 11.2.2).
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
// Adam7: [x0, y0, dx, dy] of each pass.
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]] as const;

export interface PngHeader { width: number; height: number; bitDepth: number; colorType: number; interlace: number }

/** IHDR, which the PNG spec puts first; throws for anything a decoder would refuse. */
export function pngHeader(b: Buffer): PngHeader {
  if (b.length < 33 || b.readUInt32BE(0) !== 0x89504e47 || b.readUInt32BE(12) !== 0x49484452 || b.readUInt32BE(8) !== 13) throw new Error("no IHDR");
  const h = { width: b.readUInt32BE(16), height: b.readUInt32BE(20), bitDepth: b[24]!, colorType: b[25]!, interlace: b[28]! };
  if (h.width === 0 || h.height === 0 || !DEPTHS[h.colorType]?.includes(h.bitDepth) || h.interlace > 1) {
    throw new Error(`invalid IHDR (${h.width}x${h.height}, colour type ${h.colorType}, depth ${h.bitDepth}, interlace ${h.interlace})`);
  }
  return h;
}

/** Exactly the bytes a decoder inflates from IDAT for this header: each row, filter byte included, per Adam7 pass. */
export function pngInflatedSize(h: PngHeader): number {
  const bits = CHANNELS[h.colorType]! * h.bitDepth;
  const row = (w: number) => 1 + Math.ceil((w * bits) / 8);
  if (h.interlace === 0) return h.height * row(h.width);
  let n = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    const w = Math.ceil((h.width - x0) / dx);
    const rows = Math.ceil((h.height - y0) / dy);
    if (w > 0 && rows > 0) n += rows * row(w);
  }
  return n;
}

/**
 * The PNG re-encoded losslessly (IDAT deflated at level 9, metadata chunks dropped); its byte length. IDAT is inflated
 * with an output bound — the size its own header declares, at most `maxInflatedBytes` — so inflating stops (zlib
 * counts the output chunk by chunk) as soon as the data runs past what the image can hold: more pixel data than the
 * header declares is malformed, and a decompression bomb.
 */
export function reencodePng(data: Uint8Array, budget: ReencodeBudget): number {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const header = pngHeader(b);
  if (header.width * header.height > budget.maxPixels) throw new ImageRefused(`larger than ${budget.maxPixels} pixels`);
  const declared = pngInflatedSize(header);
  const limit = Math.min(declared, budget.maxInflatedBytes);
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
        out.push(chunk("IDAT", deflateSync(inflateBounded(Buffer.concat(idat), limit, declared), { level: 9, memLevel: 9 })));
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

function inflateBounded(compressed: Buffer, limit: number, declared: number): Buffer {
  try {
    return inflateSync(compressed, { maxOutputLength: limit });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new ImageRefused(
        limit < declared
          ? `its pixel data inflates past ${limit} bytes, the limit for any image`
          : `its pixel data inflates past the ${declared} bytes its header declares (a decompression bomb)`,
      );
    }
    throw err;
  }
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
      if (i + 5 + (precision ? 128 : 64) > b.length) return undefined;
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

/**
 * The JPEG decoded and encoded again at its own quality; the new byte length. jpeg-js refuses frames over
 * `maxPixels` and counts its own allocations against `maxJpegMemoryMb` before making them.
 */
export function reencodeJpeg(data: Uint8Array, budget: ReencodeBudget): number {
  const quality = jpegQuality(data);
  if (quality === undefined) throw new Error("no quantisation table");
  const img = jpeg.decode(Buffer.from(data.buffer, data.byteOffset, data.byteLength), {
    useTArray: true,
    maxResolutionInMP: budget.maxPixels / 1e6,
    maxMemoryUsageInMB: budget.maxJpegMemoryMb,
  });
  return jpeg.encode({ data: img.data, width: img.width, height: img.height }, quality).data.length;
}
