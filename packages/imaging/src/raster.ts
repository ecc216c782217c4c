// RGBA rasters in plain JavaScript (pngjs, jpeg-js): decode a screenshot, encode a thumbnail, find the dominant
// colour. Pure functions with no native code, so they run in any worker thread; the callers bound the input size.
import jpeg from "jpeg-js";
import { PNG } from "pngjs";

export interface Raster { width: number; height: number; data: Uint8Array } // RGBA

/**
 * Twice the tag scanner's screenshot budget (its measure.ts MAX_SHOT_PIXELS, with room for rounding): a larger PNG never came from our
 * clip, and its RGBA raster would be allocated outside any heap limit before a single row is inflated.
 */
export const MAX_DECODE_PIXELS = 16 * 1024 * 1024;

export function decodePng(png: Uint8Array): Raster {
  // IHDR is the first chunk: width and height at bytes 16..23, big-endian.
  if (png.byteLength < 24) throw new Error("not a PNG");
  const dv = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const w = dv.getUint32(16);
  const h = dv.getUint32(20);
  if (w * h > MAX_DECODE_PIXELS) throw new Error(`PNG of ${w}x${h} is over the decode budget of ${MAX_DECODE_PIXELS} pixels`);
  const img = PNG.sync.read(Buffer.from(png));
  return { width: img.width, height: img.height, data: img.data };
}

/** Box-filter downscale to at most `maxWidth` wide, encoded as JPEG (the report thumbnail). */
export function thumbnailJpeg(src: Raster, maxWidth = 300, quality = 80): Uint8Array {
  const t = thumbnailRaster(src, maxWidth);
  return new Uint8Array(jpeg.encode({ width: t.width, height: t.height, data: t.data }, quality).data);
}

/**
 * The thumbnail's pixels: a box-filter downscale to at most `maxWidth` wide, transparency composited on white, opaque
 * RGBA. For a caller with a native JPEG encoder: jpeg-js builds its Huffman and category tables anew on every encode
 * (~60 ms of CPU for a 300x250 thumbnail; libjpeg-turbo takes ~1 ms).
 */
export function thumbnailRaster(src: Raster, maxWidth = 300): Raster {
  const scale = Math.min(1, maxWidth / src.width);
  const w = Math.max(1, Math.round(src.width * scale));
  const h = Math.max(1, Math.round(src.height * scale));
  const out = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) {
    const y0 = Math.floor(y / scale);
    const y1 = Math.max(y0 + 1, Math.min(src.height, Math.floor((y + 1) / scale)));
    for (let x = 0; x < w; x++) {
      const x0 = Math.floor(x / scale);
      const x1 = Math.max(x0 + 1, Math.min(src.width, Math.floor((x + 1) / scale)));
      let r = 0, g = 0, b = 0, n = 0;
      for (let yy = y0; yy < y1; yy++)
        for (let xx = x0; xx < x1; xx++) {
          const i = (yy * src.width + xx) * 4;
          // Transparent pixels are composited on white, as the page shows them.
          const a = src.data[i + 3]! / 255;
          r += src.data[i]! * a + 255 * (1 - a);
          g += src.data[i + 1]! * a + 255 * (1 - a);
          b += src.data[i + 2]! * a + 255 * (1 - a);
          n++;
        }
      const o = (y * w + x) * 4;
      out[o] = r / n;
      out[o + 1] = g / n;
      out[o + 2] = b / n;
      out[o + 3] = 255;
    }
  }
  return { width: w, height: h, data: out };
}

export function encodeJpeg(src: Raster, quality = 80): Uint8Array {
  return thumbnailJpeg(src, src.width, quality);
}

export function decodeJpeg(data: Uint8Array): Raster {
  const img = jpeg.decode(Buffer.from(data), { useTArray: true, formatAsRGBA: true });
  return { width: img.width, height: img.height, data: img.data };
}

/**
 * Dominant colour: pixels bucketed at 4 bits per channel (sampled on a grid for big images), the fullest bucket's
 * mean colour as #rrggbb.
 */
export function dominantColor(src: Raster): string {
  const step = Math.max(1, Math.floor(Math.sqrt((src.width * src.height) / 40_000)));
  const buckets = new Map<number, { n: number; r: number; g: number; b: number }>();
  for (let y = 0; y < src.height; y += step)
    for (let x = 0; x < src.width; x += step) {
      const i = (y * src.width + x) * 4;
      const a = src.data[i + 3]! / 255;
      const r = src.data[i]! * a + 255 * (1 - a);
      const g = src.data[i + 1]! * a + 255 * (1 - a);
      const b = src.data[i + 2]! * a + 255 * (1 - a);
      const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
      const e = buckets.get(key) ?? { n: 0, r: 0, g: 0, b: 0 };
      e.n++;
      e.r += r;
      e.g += g;
      e.b += b;
      buckets.set(key, e);
    }
  let best: { n: number; r: number; g: number; b: number } | undefined;
  for (const e of buckets.values()) if (!best || e.n > best.n) best = e;
  if (!best) return "";
  const hex = (v: number) => Math.round(v / best!.n).toString(16).padStart(2, "0");
  return `#${hex(best.r)}${hex(best.g)}${hex(best.b)}`;
}
