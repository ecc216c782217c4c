// The GIF timing reader on GIFs built byte by byte (only the blocks it reads), and the raster helpers on known pixels.
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { decodeJpeg, decodePng, dominantColor, encodeJpeg, gifAnimation, imageAnimation, MAX_DECODE_PIXELS, thumbnailJpeg, type Raster } from "../src/index.ts";

/** A GIF with one 1x1 frame per delay (centiseconds) and, when `loops` is given, a NETSCAPE2.0 loop block. */
function gif(delaysCs: number[], loops?: number): Uint8Array {
  const bytes: number[] = [...Buffer.from("GIF89a"), 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]; // 2-entry colour table
  if (loops !== undefined) bytes.push(0x21, 0xff, 11, ...Buffer.from("NETSCAPE2.0"), 3, 1, loops & 255, loops >> 8, 0);
  for (const d of delaysCs) {
    bytes.push(0x21, 0xf9, 4, 0, d & 255, d >> 8, 0, 0); // graphic control extension: the frame's delay
    bytes.push(0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0); // image descriptor + LZW data of one pixel
  }
  bytes.push(0x3b);
  return Uint8Array.from(bytes);
}

describe("gifAnimation", () => {
  it("sums the delays; 0 and 1 cs are shown for 100 ms; no NETSCAPE block = one play", () => {
    expect(gifAnimation(gif([5, 20, 100]))).toEqual({ frames: 3, durationMs: 1250, plays: 1 });
    expect(gifAnimation(gif([0, 1, 50]))).toEqual({ frames: 3, durationMs: 700, plays: 1 });
  });

  it("NETSCAPE loop count n = n repetitions after the first play; 0 = forever", () => {
    expect(gifAnimation(gif([10, 10], 2))?.plays).toBe(3);
    expect(gifAnimation(gif([10, 10], 0))?.plays).toBe(0);
  });

  it("one frame is not an animation; not a GIF → undefined", () => {
    expect(gifAnimation(gif([50], 0))).toEqual({ frames: 1, durationMs: 0, plays: 1 });
    expect(gifAnimation(Buffer.from("not a gif at all"))).toBeUndefined();
    expect(imageAnimation(gif([10, 10], 0))).toEqual({ frames: 2, durationMs: 200, plays: 0 });
  });
});

describe("raster helpers", () => {
  const raster = (w: number, h: number, rgba: [number, number, number, number]): Raster => {
    const data = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) data.set(rgba, i * 4);
    return { width: w, height: h, data };
  };

  it("PNG decode → the pixels; a header over the decode budget is refused before inflating", () => {
    const png = new PNG({ width: 4, height: 3 });
    png.data.fill(0);
    for (let i = 0; i < 12; i++) png.data.set([10, 20, 30, 255], i * 4);
    const r = decodePng(PNG.sync.write(png));
    expect([r.width, r.height, ...r.data.subarray(0, 4)]).toEqual([4, 3, 10, 20, 30, 255]);
    const huge = Buffer.from(PNG.sync.write(png));
    huge.writeUInt32BE(8192, 16);
    huge.writeUInt32BE(4096, 20);
    expect(8192 * 4096).toBeGreaterThan(MAX_DECODE_PIXELS);
    expect(() => decodePng(huge)).toThrow(/over the decode budget/);
  });

  it("dominant colour composites transparency on white; the JPEG thumbnail is at most the asked width", () => {
    expect(dominantColor(raster(20, 10, [200, 0, 0, 255]))).toBe("#c80000");
    expect(dominantColor(raster(20, 10, [0, 0, 0, 0]))).toBe("#ffffff");
    const thumb = decodeJpeg(thumbnailJpeg(raster(600, 500, [0, 0, 255, 255]), 300));
    expect([thumb.width, thumb.height]).toEqual([300, 250]);
    const full = decodeJpeg(encodeJpeg(raster(40, 20, [0, 128, 0, 255])));
    expect([full.width, full.height]).toEqual([40, 20]);
    expect(Math.abs(full.data[1]! - 128)).toBeLessThan(8);
  });
});
