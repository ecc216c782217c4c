// The PNG budget is exactly the pixel data the header declares: a decoder reads no more, so anything past it is
// malformed (and the way a decompression bomb hides behind a small header).
import { crc32, deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { checkImages } from "../src/fields/image-optimization.ts";
import { pngInflatedSize } from "../src/fields/image-reencode.ts";

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, "latin1"), data])));
  return Buffer.concat([len, Buffer.from(type, "latin1"), data, crc]);
}

function pngWith(w: number, h: number, idat: Buffer, level = 9, interlace = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, interlace], 8);
  return Buffer.concat([
    Buffer.from("89504e470d0a1a0a", "hex"),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(idat, { level })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("PNG pixel data budget", () => {
  it("computes the declared pixel data exactly, interlaced (Adam7) or not", () => {
    const header = (w: number, h: number, colorType: number, bitDepth: number, interlace: number) => ({ width: w, height: h, colorType, bitDepth, interlace });
    expect(pngInflatedSize(header(100, 100, 2, 8, 0))).toBe(100 * (1 + 300));
    expect(pngInflatedSize(header(3, 1, 0, 1, 0))).toBe(2);
    expect(pngInflatedSize(header(10, 10, 6, 16, 0))).toBe(10 * (1 + 80));
    // 8x8 RGB interlaced: passes of 1x1, 1x1, 2x1, 2x2, 4x2, 4x4, 8x4 pixels.
    expect(pngInflatedSize(header(8, 8, 2, 8, 1))).toBe(1 * 4 + 1 * 4 + 1 * 7 + 2 * 7 + 2 * 13 + 4 * 13 + 4 * 25);
    // A real interlaced image with exactly that much data is re-encoded, one with more is refused.
    const exact = pngWith(8, 8, Buffer.alloc(pngInflatedSize(header(8, 8, 2, 8, 1))), 9, 1);
    const more = pngWith(8, 8, Buffer.alloc(pngInflatedSize(header(8, 8, 2, 8, 1)) + 100_000), 9, 1);
    return checkImages([{ name: "exact.png", data: exact }, { name: "more.png", data: more }]).then(([a, b]) => {
      expect(a!.error).toBe("");
      expect(b!.error).toBe("not checked: its pixel data inflates past the 207 bytes its header declares (a decompression bomb)");
    });
  });

  it("refuses an IHDR no decoder accepts", async () => {
    const bad = pngWith(8, 8, Buffer.alloc(10));
    bad[24] = 3; // bit depth 3 does not exist
    const [check] = await checkImages([{ name: "bad.png", data: bad }]);
    expect(check!.error).toBe("not checked: the PNG could not be decoded (invalid IHDR (8x8, colour type 2, depth 3, interlace 0))");
  });
});
