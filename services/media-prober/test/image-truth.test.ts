// scanImage's measurement against known truth: every image is made here with sharp (APNG with ffmpeg, which sharp
// cannot write), never committed, and each one's truth stands beside it — the delays, loops, depth, colour space,
// EXIF/GPS, border and weight it was made with.
import { createMemoryArtifactSink } from "@cva/platform";
import sharp from "sharp";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageAnalyzer, type ImageAnalyzer, type ImageFileFields } from "../src/image/index.ts";
import { ffmpeg } from "./fixtures.ts";

const artifacts = createMemoryArtifactSink();
let analyzer: ImageAnalyzer;
let dir: string;

const solid = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
/** Three 30x20 frames, red, green, blue. */
const frames = () => Promise.all(["#ff0000", "#00ff00", "#0000ff"].map((c) => solid(30, 20, c)));
/** A w x h opaque PNG: `inside` framed by a `t` px band of `band`. */
async function framed(w: number, h: number, t: number, band: string, inside: string): Promise<Buffer> {
  const centre = await solid(w - 2 * t, h - 2 * t, inside);
  return sharp({ create: { width: w, height: h, channels: 3, background: band } })
    .composite([{ input: centre, left: t, top: t }])
    .removeAlpha()
    .png()
    .toBuffer();
}

beforeAll(async () => {
  analyzer = createImageAnalyzer({ artifacts });
  dir = await mkdtemp(join(tmpdir(), "cva-image-truth-"));
  await analyzer.warmUp();
});
afterAll(async () => {
  await analyzer?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const analyze = (b: Uint8Array | string) => analyzer.analyze(b);

describe("animation: the browsers' rules (frames of ≤ 10 ms last 100 ms; one play × plays; forever = -1)", () => {
  it("GIF, delays 50/200/1000 ms, played 3 times (NETSCAPE loop count 2) → 1250 ms × 3", async () => {
    const gif = await sharp(await frames(), { join: { animated: true } }).gif({ loop: 3, delay: [50, 200, 1000] }).toBuffer();
    const r = await analyze(gif);
    expect(r).toMatchObject({ format: "gif", mimeType: "image/gif", animated: true, frameCount: 3, loopCount: 3, animationDurationMs: 3750n, width: 30, height: 20 });
    expect(r.notMeasured).toEqual([]);
  });

  it("GIF, delays 0/10/500 ms looping forever → one play 100+100+500, duration -1", async () => {
    const gif = await sharp(await frames(), { join: { animated: true } }).gif({ loop: 0, delay: [0, 10, 500] }).toBuffer();
    expect(await analyze(gif)).toMatchObject({ animated: true, frameCount: 3, loopCount: 0, animationDurationMs: -1n });
  });

  it("WebP, delays 5/200/1000 ms, 2 plays → (100+200+1000) × 2", async () => {
    const webp = await sharp(await frames(), { join: { animated: true } }).webp({ loop: 2, delay: [5, 200, 1000], lossless: true }).toBuffer();
    expect(await analyze(webp)).toMatchObject({ format: "webp", mimeType: "image/webp", animated: true, frameCount: 3, loopCount: 2, animationDurationMs: 2600n });
  });

  it("WebP looping forever → -1", async () => {
    const webp = await sharp(await frames(), { join: { animated: true } }).webp({ loop: 0, delay: [300, 300, 300] }).toBuffer();
    expect(await analyze(webp)).toMatchObject({ animated: true, frameCount: 3, loopCount: 0, animationDurationMs: -1n });
  });

  it("APNG (ffmpeg), 4 frames at 4 fps, 2 plays → 1000 ms × 2", async () => {
    const path = join(dir, "two-plays.apng");
    await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x48:r=4:d=1", "-plays", "2", "-f", "apng", path);
    expect(await analyze(path)).toMatchObject({ format: "png", animated: true, frameCount: 4, loopCount: 2, animationDurationMs: 2000n, width: 64, height: 48 });
  });

  it("a still image: not animated, one frame, one play, 0 ms", async () => {
    expect(await analyze(await solid(10, 10, "#123456"))).toMatchObject({ animated: false, frameCount: 1, loopCount: 1, animationDurationMs: 0n });
  });
});

describe("pixels: depth, alpha, colour space, ICC profile, orientation", () => {
  it("16-bit PNG → bit_depth 16, srgb", async () => {
    const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#336699" } }).toColourspace("rgb16").png().toBuffer();
    expect(await analyze(png)).toMatchObject({ bitDepth: 16, colorSpace: "srgb", hasAlpha: false, iccProfile: "" });
  });

  it("CMYK JPEG with libvips' CMYK profile → cmyk, its profile named; the screenshot converted to sRGB", async () => {
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#c81e1e" } })
      .toColourspace("cmyk").withIccProfile("cmyk").jpeg({ quality: 95 }).toBuffer();
    const r = await analyze(jpeg);
    expect(r).toMatchObject({ format: "jpeg", mimeType: "image/jpeg", colorSpace: "cmyk", iccProfile: "Chemical proof", bitDepth: 8, hasAlpha: false });
    // Through the CMYK round trip the red stays red (not the inverted cyan a raw CMYK read would give).
    const [rr, gg, bb] = [1, 3, 5].map((i) => parseInt(r.screenshot!.color.slice(i, i + 2), 16));
    expect(rr).toBeGreaterThan(150);
    expect(gg).toBeLessThan(90);
    expect(bb).toBeLessThan(90);
    expect(r.screenshot!.mimeType).toBe("image/jpeg");
  });

  it("CMYK JPEG without a profile → cmyk, no profile", async () => {
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#c81e1e" } }).toColourspace("cmyk").jpeg().toBuffer();
    expect(await analyze(jpeg)).toMatchObject({ colorSpace: "cmyk", iccProfile: "" });
  });

  it("Display P3 PNG → its embedded profile's description", async () => {
    const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#ff0000" } }).withIccProfile("p3").png().toBuffer();
    // libvips' bundled P3 profile describes itself as "sP3C".
    expect(await analyze(png)).toMatchObject({ colorSpace: "srgb", iccProfile: "sP3C" });
  });

  it("greyscale and 4-colour palette PNGs → gray / 2-bit indices", async () => {
    const grey = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#808080" } }).toColourspace("b-w").png().toBuffer();
    expect(await analyze(grey)).toMatchObject({ colorSpace: "gray", bitDepth: 8 });
    const palette = await sharp(await solid(20, 10, "#ff0000")).png({ palette: true, colours: 4 }).toBuffer();
    expect(await analyze(palette)).toMatchObject({ bitDepth: 2 });
  });

  it("transparent PNG → has_alpha, screenshot kept as PNG", async () => {
    const png = await sharp({ create: { width: 20, height: 10, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } }).png().toBuffer();
    const r = await analyze(png);
    expect(r.hasAlpha).toBe(true);
    expect(r.screenshot!.mimeType).toBe("image/png");
  });

  it("JPEG stored 250x300 with EXIF orientation 6 → displayed 300x250 (as browsers draw it), IAB 300x250", async () => {
    const jpeg = await sharp({ create: { width: 250, height: 300, channels: 3, background: "#2266aa" } }).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const r = await analyze(jpeg);
    expect(r).toMatchObject({ width: 300, height: 250, aspectRatio: "6:5", iabSize: "300x250" });
    expect(r.metadata.exif.Orientation).toBe("6");
    const shot = await sharp(artifacts.get(r.screenshot!.id)!.data).metadata();
    expect([shot.width, shot.height]).toEqual([300, 250]);
  });

  it("AVIF still: format, size and depth; weight not measured (no lossless AVIF re-encode)", async () => {
    const avif = await sharp(await solid(64, 48, "#884422")).avif({ bitdepth: 10 }).toBuffer();
    const r = await analyze(avif);
    expect(r).toMatchObject({ format: "avif", mimeType: "image/avif", width: 64, height: 48, bitDepth: 10, animated: false, analysisError: "" });
    expect(r.notMeasured).toEqual(["optimized", "potential_saving_bytes"]);
  });
});

describe("metadata: EXIF tags and the GPS position (a privacy leak)", () => {
  it("GPS 33°51'24.48\"S 151°12'55.08\"E (-33.8568, 151.2153) and the camera, as written with sharp's withExif", async () => {
    const jpeg = await sharp({ create: { width: 32, height: 24, channels: 3, background: "#777777" } })
      .withExif({
        IFD0: { Make: "Acme", Model: "Snapper 3", Software: "PhotoTool 9", Copyright: "Example Co" },
        IFD3: { GPSLatitudeRef: "S", GPSLatitude: "33/1 51/1 2448/100", GPSLongitudeRef: "E", GPSLongitude: "151/1 12/1 5508/100" },
      })
      .jpeg()
      .toBuffer();
    const r = await analyze(jpeg);
    expect(r.metadata.gps).toEqual({ present: true, latitude: -33.8568, longitude: 151.2153 });
    expect(r.metadata.exif).toMatchObject({ Make: "Acme", Model: "Snapper 3", Software: "PhotoTool 9", Copyright: "Example Co" });
  });

  it("a western longitude is negative; a PNG carries EXIF too", async () => {
    const png = await sharp(await solid(16, 16, "#abcdef"))
      .withExif({ IFD0: { Make: "Acme" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "40/1 41/1 0/1", GPSLongitudeRef: "W", GPSLongitude: "74/1 2/1 40/1" } })
      .png()
      .toBuffer();
    const r = await analyze(png);
    expect(r.metadata.gps.present).toBe(true);
    expect(r.metadata.gps.latitude).toBeCloseTo(40.683333, 5);
    expect(r.metadata.gps.longitude).toBeCloseTo(-74.044444, 5);
  });

  it("no EXIF → no tags, no position", async () => {
    expect((await analyze(await solid(8, 8, "#000000"))).metadata).toEqual({ exif: {}, gps: { present: false, latitude: 0, longitude: 0 } });
  });
});

describe("border, IAB size, aspect ratio (the tag scanner's detector)", () => {
  it("300x250 PNG with a 2 px black border around light grey → has_border, 300x250, 6:5", async () => {
    const r = await analyze(await framed(300, 250, 2, "#000000", "#f4f4f4"));
    expect(r).toMatchObject({ hasBorder: true, width: 300, height: 250, aspectRatio: "6:5", iabSize: "300x250" });
    expect(r.screenshot).toMatchObject({ mimeType: "image/png", color: "#f4f4f4" });
    expect(artifacts.get(r.screenshot!.id)?.mimeType).toBe("image/png");
  });

  it("the same without a border → no border", async () => {
    expect(await analyze(await solid(300, 250, "#f4f4f4"))).toMatchObject({ hasBorder: false, iabSize: "300x250" });
  });

  it("728x90 → IAB 728x90 and its reduced ratio; 301x250 → no IAB size", async () => {
    expect(await analyze(await solid(728, 90, "#ffffff"))).toMatchObject({ iabSize: "728x90", aspectRatio: "364:45" });
    expect(await analyze(await solid(1920, 1080, "#ffffff"))).toMatchObject({ iabSize: "", aspectRatio: "16:9" });
    expect(await analyze(await solid(301, 250, "#ffffff"))).toMatchObject({ iabSize: "" });
  });
});

describe("optimized: a lossless re-encode saving more than 5 %", () => {
  it("a PNG stored without compression is not optimized; the same image at level 9 with adaptive filters is", async () => {
    const image = sharp({ create: { width: 300, height: 250, channels: 3, background: "#000000", noise: { type: "gaussian", mean: 128, sigma: 10 } } });
    const raw = await image.clone().png({ compressionLevel: 0 }).toBuffer();
    const tight = await image.clone().png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer();
    const loose = await analyze(raw);
    expect(loose.optimized).toBe(false);
    // The stored file is 225 000 bytes of pixels plus framing; level 9 packs them to about the tight file's size.
    expect(Number(loose.potentialSavingBytes)).toBeGreaterThan(raw.length - tight.length * 1.1);
    const good = await analyze(tight);
    expect(good.optimized).toBe(true);
    expect(Number(good.potentialSavingBytes)).toBeLessThanOrEqual(0.05 * tight.length);
  });

  it("a PNG whose raw image data is over the re-encode limit: optimized not measured, and why", async () => {
    const small = createImageAnalyzer({ artifacts, limits: { maxReencodeRawBytes: 1000 } });
    try {
      const r = await small.analyze(await solid(64, 64, "#204080"));
      expect(r.notMeasured).toEqual(["optimized", "potential_saving_bytes"]);
      expect(r).toMatchObject({ optimized: false, potentialSavingBytes: 0n, width: 64 });
      expect(r.analysisError).toBe("the lossless re-encode was not measured: its image data (12352 bytes raw) is over the re-encode limit of 1000 bytes");
    } finally {
      await small.close();
    }
  });

  it("a JPEG carrying 20 KB of XMP is not optimized: the XMP is the saving", async () => {
    const xmp = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><!--${"x".repeat(20_000)}--></x:xmpmeta>`;
    const image = sharp({ create: { width: 64, height: 64, channels: 3, background: "#3366cc" } });
    const plain = await image.clone().jpeg().toBuffer();
    const heavy = await image.clone().jpeg().withXmp(xmp).toBuffer();
    const r = await analyze(heavy);
    expect(r.optimized).toBe(false);
    // Exactly the metadata sharp added: the file without it is `plain`.
    expect(Number(r.potentialSavingBytes)).toBe(heavy.length - plain.length);
    expect((await analyze(plain)).optimized).toBe(true);
  });
});

describe("SVG", () => {
  const svg = (attrs: string, body = '<rect width="100%" height="100%" fill="#0a0"/>') =>
    Buffer.from(`<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" ${attrs}>${body}</svg>`);

  it("size from width/height (px); rendered at that size", async () => {
    const r = await analyze(svg('width="300" height="250" viewBox="0 0 600 500"'));
    expect(r).toMatchObject({ format: "svg", mimeType: "image/svg+xml", width: 300, height: 250, iabSize: "300x250", hasAlpha: true, optimized: true });
    expect(r.notMeasured).toEqual(["bit_depth"]);
    const shot = await sharp(artifacts.get(r.screenshot!.id)!.data).metadata();
    expect([shot.width, shot.height]).toEqual([300, 250]);
    expect(r.screenshot!.color).toBe("#00aa00");
  });

  it("size from the viewBox alone; a 2 px stroke frame is a border", async () => {
    const r = await analyze(svg('viewBox="0 0 728 90"', '<rect width="728" height="90" fill="#fff"/><rect x="1" y="1" width="726" height="88" fill="none" stroke="#000" stroke-width="2"/>'));
    expect(r).toMatchObject({ width: 728, height: 90, iabSize: "728x90", hasBorder: true });
  });

  it("no size at all → width/height not measured", async () => {
    const r = await analyze(svg(""));
    expect(r.notMeasured).toEqual(expect.arrayContaining(["width", "height", "aspect_ratio", "iab_size"]));
  });

  it("comments, metadata and editor data are weight a minifier removes", async () => {
    const noise = `<!-- ${"exported by a design tool ".repeat(200)} --><metadata>${"<info>made by hand</info>".repeat(100)}</metadata>`;
    const r = await analyze(svg('width="300" height="250"', `${noise}<rect width="300" height="250" fill="#0a0"/>`));
    expect(r.optimized).toBe(false);
    expect(Number(r.potentialSavingBytes)).toBeGreaterThan(noise.length - 100);
  });
});
