// Animated WebP and APNG timing read from their chunks, as Chromium plays them. The chunks are built here with only
// the fields the reader uses (it never decodes pixels); real files made by ffmpeg play in the tag scanner's truth corpus
// (webp-once, webp-loop, apng-once).
import { describe, expect, it } from "vitest";
import { apngAnimation, imageAnimation, webpAnimation } from "../src/index.ts";

const u32le = (n: number) => Buffer.from([n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >>> 24) & 255]);
const u32be = (n: number) => Buffer.from([(n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255]);
const u16be = (n: number) => Buffer.from([(n >> 8) & 255, n & 255]);

function webp(loops: number, durationsMs: number[], anim = true): Buffer {
  const chunk = (type: string, payload: Buffer) =>
    Buffer.concat([Buffer.from(type, "latin1"), u32le(payload.length), payload, payload.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  const frames = durationsMs.map((d) => {
    const head = Buffer.alloc(16);
    head.writeUIntLE(299, 6, 3);
    head.writeUIntLE(249, 9, 3);
    head.writeUIntLE(d, 12, 3);
    return chunk("ANMF", Buffer.concat([head, Buffer.from("VP8L....", "latin1"), Buffer.alloc(1)])); // odd size: padded
  });
  const body = Buffer.concat([
    Buffer.from("WEBP", "latin1"),
    chunk("VP8X", Buffer.alloc(10)),
    ...(anim ? [chunk("ANIM", Buffer.concat([Buffer.alloc(4), Buffer.from([loops & 255, loops >> 8])]))] : []),
    ...frames,
  ]);
  return Buffer.concat([Buffer.from("RIFF", "latin1"), u32le(body.length), body]);
}

function apng(plays: number, delays: Array<[number, number]>): Buffer {
  const chunk = (type: string, payload: Buffer) => Buffer.concat([u32be(payload.length), Buffer.from(type, "latin1"), payload, Buffer.alloc(4)]);
  const fctl = ([num, den]: [number, number], seq: number) =>
    chunk("fcTL", Buffer.concat([u32be(seq), u32be(300), u32be(250), u32be(0), u32be(0), u16be(num), u16be(den), Buffer.from([0, 0])]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", Buffer.alloc(13)),
    chunk("acTL", Buffer.concat([u32be(delays.length), u32be(plays)])),
    ...delays.flatMap((d, i) => [fctl(d, i * 2), chunk(i === 0 ? "IDAT" : "fdAT", Buffer.alloc(8))]),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("animated WebP", () => {
  it("sums its frames' durations and reads the loop count as plays (0 = forever)", () => {
    expect(webpAnimation(webp(1, [1000, 1000, 1000]))).toEqual({ frames: 3, durationMs: 3000, plays: 1 });
    expect(webpAnimation(webp(0, [500, 250]))).toEqual({ frames: 2, durationMs: 750, plays: 0 });
    expect(webpAnimation(webp(3, [40, 40]))).toEqual({ frames: 2, durationMs: 80, plays: 3 });
  });
  it("shows frames of 10 ms or less for 100 ms, as Chromium does", () => {
    expect(webpAnimation(webp(1, [0, 10, 11]))!.durationMs).toBe(211);
  });
  it("is not animated without an ANIM chunk or with one frame; other formats are not WebP", () => {
    expect(webpAnimation(webp(1, [1000, 1000], false))).toBeUndefined();
    expect(webpAnimation(webp(0, [1000]))).toEqual({ frames: 1, durationMs: 0, plays: 1 });
    expect(webpAnimation(apng(1, [[1, 1]]))).toBeUndefined();
  });
  it("stops at a chunk that claims more bytes than the file has", () => {
    const b = webp(1, [1000, 1000, 1000]);
    const cut = b.subarray(0, b.length - 20);
    expect(webpAnimation(cut)).toEqual({ frames: 2, durationMs: 2000, plays: 1 });
  });
});

describe("APNG", () => {
  it("sums delay_num/delay_den per frame (a denominator of 0 is 1/100 s) and reads num_plays (0 = forever)", () => {
    expect(apngAnimation(apng(1, [[1, 1], [1, 1], [1, 1]]))).toEqual({ frames: 3, durationMs: 3000, plays: 1 });
    expect(apngAnimation(apng(0, [[50, 0], [1, 4]]))).toEqual({ frames: 2, durationMs: 750, plays: 0 });
    expect(apngAnimation(apng(2, [[0, 100], [1, 100]]))!.durationMs).toBe(200);
  });
  it("a PNG without acTL is a still image", () => {
    const still = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), u32be(0), Buffer.from("IEND", "latin1"), Buffer.alloc(4)]);
    expect(apngAnimation(still)).toBeUndefined();
  });
});

describe("imageAnimation", () => {
  it("reads whichever of GIF, WebP and APNG the bytes are", () => {
    expect(imageAnimation(webp(1, [1000, 1000]))!.durationMs).toBe(2000);
    expect(imageAnimation(apng(1, [[1, 2], [1, 2]]))!.durationMs).toBe(1000);
    expect(imageAnimation(Buffer.from("not an image"))).toBeUndefined();
  });
});
