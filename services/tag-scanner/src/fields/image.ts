import jpeg from "jpeg-js";
import { PNG } from "pngjs";

export interface Raster { width: number; height: number; data: Uint8Array } // RGBA

export function decodePng(png: Uint8Array): Raster {
  const img = PNG.sync.read(Buffer.from(png));
  return { width: img.width, height: img.height, data: img.data };
}

/** Box-filter downscale to at most `maxWidth` wide, encoded as JPEG (the report thumbnail). */
export function thumbnailJpeg(src: Raster, maxWidth = 300, quality = 80): Uint8Array {
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
  return new Uint8Array(jpeg.encode({ width: w, height: h, data: out }, quality).data);
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

/**
 * Border: the outermost ring of pixels of the creative's box (one CSS pixel = `scale` device pixels thick) is a
 * single colour (≥ 90 % of its pixels within a small distance of the ring's median colour) and contrasts with its
 * inner neighbour ring (≥ 60 % of ring pixels differ clearly from the pixel one CSS pixel further in). A solid
 * background or an image running to the edge fails one of the two; a drawn 1 px frame passes both.
 */
export function hasBorder(src: Raster, scale = 1): boolean {
  const s = Math.max(1, Math.round(scale));
  const { width: w, height: h } = src;
  if (w < 4 * s + 2 || h < 4 * s + 2) return false;
  const px = (x: number, y: number) => {
    const i = (y * w + x) * 4;
    const a = src.data[i + 3]! / 255;
    return [src.data[i]! * a + 255 * (1 - a), src.data[i + 1]! * a + 255 * (1 - a), src.data[i + 2]! * a + 255 * (1 - a)] as const;
  };
  const dist = (p: readonly number[], q: readonly number[]) => Math.max(Math.abs(p[0]! - q[0]!), Math.abs(p[1]! - q[1]!), Math.abs(p[2]! - q[2]!));
  // Ring pixels (depth 0) paired with the pixel `s` further inwards (depth of the next CSS pixel).
  const pairs: Array<[readonly number[], readonly number[]]> = [];
  for (let x = s; x < w - s; x++) {
    pairs.push([px(x, 0), px(x, s)]);
    pairs.push([px(x, h - 1), px(x, h - 1 - s)]);
  }
  for (let y = s; y < h - s; y++) {
    pairs.push([px(0, y), px(s, y)]);
    pairs.push([px(w - 1, y), px(w - 1 - s, y)]);
  }
  const ring = pairs.map((p) => p[0]);
  const median = [0, 1, 2].map((c) => {
    const v = ring.map((p) => p[c]!).sort((a, b) => a - b);
    return v[v.length >> 1]!;
  });
  const uniform = ring.filter((p) => dist(p, median) <= 24).length / ring.length;
  const contrast = pairs.filter(([o, i]) => dist(o, i) >= 40).length / pairs.length;
  return uniform >= 0.9 && contrast >= 0.6;
}
