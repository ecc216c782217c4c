// The screenshot's image work runs on its own thread: same results as on the main thread, the scanner's event loop
// keeps turning meanwhile, and a hostile PNG (a header claiming a huge raster) is refused before any allocation, with
// the worker answering the next image normally.
import { PNG } from "pngjs";
import { afterAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import { decodePng, dominantColor, hasBorder, thumbnailRaster } from "../src/fields/image.ts";
import { createImageWork } from "../src/image-work.ts";

function png(width: number, height: number, paint: (x: number, y: number) => [number, number, number]): Uint8Array {
  const img = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = paint(x, y);
      const i = (y * width + x) * 4;
      img.data[i] = r; img.data[i + 1] = g; img.data[i + 2] = b; img.data[i + 3] = 255;
    }
  }
  return new Uint8Array(PNG.sync.write(img));
}

describe("image work on a worker thread", () => {
  const work = createImageWork({ timeoutMs: 60_000 });
  afterAll(() => work.close());
  // A 300x250 banner with a 2 px grey frame.
  const framed = png(300, 250, (x, y) => (x < 2 || y < 2 || x >= 298 || y >= 248 ? [204, 204, 204] : [20, 120, 200]));

  it("gives what the same functions give on the main thread", async () => {
    const r = await work.analyse(framed, 300);
    const raster = decodePng(framed);
    expect(r.color).toBe(dominantColor(raster));
    expect(r.hasBorder).toBe(hasBorder(raster, 1));
    expect(r.hasBorder).toBe(true);
    // The thumbnail: the box filter's pixels through libjpeg-turbo (quality 80, 4:4:4), within JPEG's rounding.
    const want = thumbnailRaster(raster, 300);
    const got = await sharp(r.thumbnail).raw().toBuffer({ resolveWithObject: true });
    expect([got.info.width, got.info.height, got.info.format]).toEqual([want.width, want.height, "raw"]);
    let sum = 0, worst = 0;
    for (let p = 0; p < want.width * want.height; p++)
      for (let c = 0; c < 3; c++) {
        const d = Math.abs(got.data[p * got.info.channels + c]! - want.data[p * 4 + c]!);
        sum += d;
        worst = Math.max(worst, d);
      }
    // Ringing at the frame's hard edge is JPEG's at this quality (jpeg-js's own worst here is as large).
    expect(sum / (want.width * want.height * 3)).toBeLessThan(2);
    expect(worst).toBeLessThan(80);
    expect((await work.analyse(framed, undefined)).hasBorder).toBe(false);
  });

  it("leaves the event loop free while a large screenshot is decoded", async () => {
    const big = png(2000, 2000, (x, y) => [(x * 7) & 255, (y * 13) & 255, (x ^ y) & 255]);
    let ticks = 0;
    let running = true;
    const spin = () => {
      ticks++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const r = await work.analyse(big, 2000);
    running = false;
    expect(r.thumbnail.byteLength).toBeGreaterThan(0);
    // A decode on this thread would have run to its end between two turns of the loop.
    expect(ticks).toBeGreaterThan(20);
  });

  it("refuses a PNG whose header claims a huge raster, then answers the next image", async () => {
    const hostile = framed.slice();
    const dv = new DataView(hostile.buffer);
    dv.setUint32(16, 40_000);
    dv.setUint32(20, 40_000);
    await expect(work.analyse(hostile, 300)).rejects.toThrow(/over the decode budget/);
    await expect(work.analyse(new Uint8Array([1, 2, 3]), 300)).rejects.toThrow(/not decodable/);
    expect((await work.analyse(framed, 300)).hasBorder).toBe(true);
  });
});
