// The image scan's byte-level readers on inputs built here byte by byte, each with the answer it must give: format
// sniffing, header claims, SVG sizes, ICC descriptions, the lossless re-encode sizes, IAB sizes.
import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { sniffImage } from "../src/image/format.ts";
import { checkHeader, jpegFrame, readHeader } from "../src/image/header.ts";
import { iabSize } from "../src/image/iab-size.ts";
import { iccDescription } from "../src/image/icc.ts";
import { minifiedSvg, reencodePng, strippedGif, strippedJpeg, strippedWebp } from "../src/image/optimize.ts";
import { svgFacts } from "../src/image/svg.ts";

const text = (s: string) => new TextEncoder().encode(s);

describe("sniffImage", () => {
  it.each([
    ['<?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<svg xmlns="http://www.w3.org/2000/svg"/>', { ok: true, format: "svg" }],
    ["\uFEFF<svg width='1' height='1'></svg>", { ok: true, format: "svg" }],
    ["<html><body><svg></svg></body></html>", { ok: false, message: "not an image: the file is an HTML document" }],
    ['<?xml version="1.0"?><VAST version="4.0"/>', { ok: false, message: "not an image: the file is an XML document whose root is not <svg>" }],
    ['{"a":1}', { ok: false, message: "not an image: the file is a JSON document" }],
    ["hello", { ok: false, message: "not an image: the file is a text file" }],
  ])("%j", (body, answer) => {
    expect(sniffImage(text(body))).toEqual(answer);
  });

  it("binary signatures", () => {
    const sig = (...b: number[]) => sniffImage(Uint8Array.from([...b, ...new Array(32).fill(0)]));
    expect(sig(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)).toEqual({ ok: true, format: "png" });
    expect(sig(0xff, 0xd8, 0xff, 0xe0)).toEqual({ ok: true, format: "jpeg" });
    expect(sniffImage(text("GIF87a......"))).toEqual({ ok: true, format: "gif" });
    expect(sniffImage(text("RIFF\u0000\u0000\u0000\u0000WEBPVP8 "))).toEqual({ ok: true, format: "webp" });
    expect(sniffImage(text("RIFF\u0000\u0000\u0000\u0000WAVEfmt "))).toMatchObject({ ok: false, message: "not an image: the file is a RIFF file (WAVE), not a WebP image" });
    const ftyp = (major: string, ...compat: string[]) => {
      const body = Buffer.concat([Buffer.from(major), Buffer.alloc(4), ...compat.map((c) => Buffer.from(c))]);
      const head = Buffer.alloc(8);
      head.writeUInt32BE(8 + body.length);
      head.write("ftyp", 4);
      return sniffImage(Buffer.concat([head, body, Buffer.alloc(16)]));
    };
    expect(ftyp("avif", "mif1", "miaf")).toEqual({ ok: true, format: "avif" });
    expect(ftyp("mif1", "avif")).toEqual({ ok: true, format: "avif" });
    expect(ftyp("heic", "mif1")).toMatchObject({ ok: false, message: expect.stringMatching(/^unsupported image format: HEIC\/HEIF/) });
    expect(ftyp("mp42", "isom")).toMatchObject({ ok: false, message: expect.stringMatching(/video or audio/) });
    expect(sig(0x1f, 0x8b, 8)).toMatchObject({ ok: false, message: expect.stringMatching(/^not an image: the file is gzip-compressed/) });
    expect(sig(0x25, 0x50, 0x44, 0x46)).toEqual({ ok: false, message: "not an image: the file is a PDF document" });
    expect(sig(0x00, 0x01, 0x02, 0x03, 0x04)).toEqual({ ok: false, message: "not an image: the file is not in a recognised image format" });
  });
});

describe("svgFacts: the intrinsic size an <img> gives an SVG", () => {
  const svg = (attrs: string) => svgFacts(text(`<svg xmlns="http://www.w3.org/2000/svg" ${attrs}></svg>`));
  it.each([
    ['width="300" height="250"', 300, 250, "attributes"],
    ['width="300px" height="250px" viewBox="0 0 10 10"', 300, 250, "attributes"],
    ['width="72pt" height="1in"', 96, 96, "attributes"],
    ['width="100%" height="100%" viewBox="0 0 728 90"', 728, 90, "viewBox"],
    ['viewBox="0,0,160,600"', 160, 600, "viewBox"],
    ['width="320" viewBox="0 0 640 100"', 320, 50, "attributes"],
    ["", 0, 0, "none"],
    ['width="2em" height="3em"', 0, 0, "none"],
  ])("%s → %dx%d from %s", (attrs, w, h, from) => {
    expect(svg(attrs)).toMatchObject({ width: w, height: h, sizeFrom: from });
  });
});

describe("header claims", () => {
  it("a JPEG's frame header, past fill bytes and APPn segments", () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xff, 0xc2, 0, 17, 12, 0x01, 0x2c, 0x02, 0x58, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(jpegFrame(jpeg)).toEqual({ precision: 12, height: 300, width: 600, components: 4 });
  });

  it("an AVIF's primary size from its ispe property; a still AVIF is not a sequence", async () => {
    const avif = await sharp({ create: { width: 48, height: 30, channels: 3, background: "#123" } }).avif().toBuffer();
    expect(readHeader(avif, "avif")).toMatchObject({ width: 48, height: 30, avifSequence: false, frames: 1 });
  });

  it("refuses a zero-sized raster and too many frames; an SVG's claimed size is never refused", () => {
    const limits = { maxPixels: 100, maxFrames: 3 };
    const facts = { width: 0, height: 5, frames: 1, avifSequence: false, bitDepth: 8 };
    expect(() => checkHeader(facts, "png", limits)).toThrow("the PNG header gives a size of 0x5: not an image that can be shown");
    expect(() => checkHeader({ ...facts, width: 5, frames: 4 }, "webp", limits)).toThrow("the WebP has 4 frames, over the limit of 3; not decoded");
    expect(() => checkHeader({ ...facts, width: 11, height: 10 }, "jpeg", limits)).toThrow(/over the limit of 100 pixels/);
    expect(() => checkHeader({ ...facts, width: 1e5, height: 1e5 }, "svg", limits)).not.toThrow();
  });
});

describe("iccDescription", () => {
  /** A profile with one tag, `desc`, of the given type and body. */
  function profile(tagBody: Buffer): Buffer {
    const head = Buffer.alloc(132);
    head.writeUInt32BE(1, 128);
    const entry = Buffer.alloc(12);
    entry.write("desc", 0, "latin1");
    entry.writeUInt32BE(144, 4);
    entry.writeUInt32BE(tagBody.length, 8);
    const p = Buffer.concat([head, entry, tagBody]);
    p.writeUInt32BE(p.length, 0);
    return p;
  }

  it("ICC v2 textDescriptionType (ASCII)", () => {
    const s = "U.S. Web Coated (SWOP) v2";
    const body = Buffer.alloc(12 + s.length + 1 + 70);
    body.write("desc", 0, "latin1");
    body.writeUInt32BE(s.length + 1, 8);
    body.write(s, 12, "latin1");
    expect(iccDescription(profile(body))).toBe(s);
  });

  it("ICC v4 multiLocalizedUnicodeType: English chosen among the records", () => {
    const de = Buffer.from("Farbprofil", "utf16le").swap16();
    const en = Buffer.from("Display P3", "utf16le").swap16();
    const body = Buffer.alloc(16 + 2 * 12 + de.length + en.length);
    body.write("mluc", 0, "latin1");
    body.writeUInt32BE(2, 8);
    body.writeUInt32BE(12, 12);
    body.write("deDE", 16, "latin1");
    body.writeUInt32BE(de.length, 20);
    body.writeUInt32BE(40, 24);
    body.write("enUS", 28, "latin1");
    body.writeUInt32BE(en.length, 32);
    body.writeUInt32BE(40 + de.length, 36);
    de.copy(body, 40);
    en.copy(body, 40 + de.length);
    expect(iccDescription(profile(body))).toBe("Display P3");
  });

  it("a truncated or absent profile gives \"\"", () => {
    expect(iccDescription(undefined)).toBe("");
    expect(iccDescription(Buffer.alloc(100))).toBe("");
    const bad = Buffer.alloc(144);
    bad.writeUInt32BE(1, 128);
    bad.write("desc", 132, "latin1");
    bad.writeUInt32BE(1000, 136);
    bad.writeUInt32BE(50, 140);
    expect(iccDescription(bad)).toBe("");
  });
});

describe("lossless re-encode sizes", () => {
  it("JPEG: EXIF, XMP, comments and data after the end marker are dropped; JFIF, ICC and Adobe kept", () => {
    const seg = (marker: number, body: Buffer) => {
      const h = Buffer.from([0xff, marker, 0, 0]);
      h.writeUInt16BE(body.length + 2, 2);
      return Buffer.concat([h, body]);
    };
    const jfif = seg(0xe0, Buffer.from("JFIF\u0000\u0001\u0002\u0000\u0000\u0001\u0000\u0001\u0000\u0000", "latin1"));
    const exif = seg(0xe1, Buffer.concat([Buffer.from("Exif\u0000\u0000", "latin1"), Buffer.alloc(500)]));
    const icc = seg(0xe2, Buffer.concat([Buffer.from("ICC_PROFILE\u0000", "latin1"), Buffer.alloc(300)]));
    const com = seg(0xfe, Buffer.alloc(100, 0x41));
    const adobe = seg(0xee, Buffer.from("Adobe\u0000\u0064\u0000\u0000\u0000\u0000\u0001", "latin1"));
    const scan = Buffer.from([0xff, 0xda, 0, 2, 1, 2, 3, 4, 0xff, 0xd9]);
    const trailer = Buffer.alloc(1000, 7);
    const file = Buffer.concat([Buffer.from([0xff, 0xd8]), jfif, exif, icc, com, adobe, scan, trailer]);
    expect(strippedJpeg(file)).toBe(file.length - exif.length - com.length - trailer.length);
    // Rotated by its EXIF: a minimal orientation tag (36 bytes) has to stay.
    expect(strippedJpeg(file, 6)).toBe(file.length - exif.length - com.length - trailer.length + 36);
  });

  it("GIF: comments and foreign application blocks dropped, the loop block kept", () => {
    const head = [...Buffer.from("GIF89a"), 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255];
    const loop = [0x21, 0xff, 11, ...Buffer.from("NETSCAPE2.0"), 3, 1, 0, 0, 0];
    const xmp = [0x21, 0xff, 11, ...Buffer.from("XMP DataXMP"), 50, ...new Array(50).fill(0x20), 0];
    const comment = [0x21, 0xfe, 5, ...Buffer.from("hello"), 0];
    const frame = [0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0];
    const gif = Uint8Array.from([...head, ...loop, ...xmp, ...comment, ...frame, 0x3b]);
    expect(strippedGif(gif)).toBe(gif.length - xmp.length - comment.length);
  });

  it("WebP: EXIF and XMP chunks dropped", () => {
    const chunk = (type: string, n: number) => {
      const h = Buffer.alloc(8);
      h.write(type, 0, "latin1");
      h.writeUInt32LE(n, 4);
      return Buffer.concat([h, Buffer.alloc(n + (n & 1))]);
    };
    const body = Buffer.concat([Buffer.from("WEBP"), chunk("VP8X", 10), chunk("VP8L", 21), chunk("EXIF", 101), chunk("XMP ", 40)]);
    const riff = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), body]);
    expect(strippedWebp(riff)).toBe(riff.length - (8 + 102) - (8 + 40));
  });

  it("SVG: comments, metadata, editor data and whitespace between tags; text content and its spaces stay", () => {
    const lean = '<svg xmlns="http://www.w3.org/2000/svg"><g><rect width="1" height="1"/><text> a  b </text></g></svg>';
    const fat =
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" inkscape:version="1.2">\n' +
      "  <!-- exported -->\n  <metadata><rdf:RDF>x</rdf:RDF></metadata>\n  <sodipodi:namedview pagecolor=\"#fff\"/>\n" +
      '  <g inkscape:label="Layer 1">\n    <rect width="1" height="1"/>\n    <text> a  b </text>\n  </g>\n</svg>\n';
    expect(minifiedSvg(text(fat))).toBe(text(lean).length);
    expect(minifiedSvg(text(lean))).toBe(text(lean).length);
    // Linear in a hostile run of unterminated comments.
    const hostile = text(`<svg>${"<!--".repeat(200_000)}`);
    const t = performance.now();
    minifiedSvg(hostile);
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it("PNG: a stored (level 0) image re-packs to its level-9 size; metadata chunks are weight; an IDAT bomb stops at the header's size", async () => {
    const img = sharp({ create: { width: 64, height: 64, channels: 3, background: "#204080" } });
    const stored = await img.clone().png({ compressionLevel: 0 }).toBuffer();
    const packed = await reencodePng(stored, { maxRawBytes: 1e8 });
    expect(packed).toBeLessThan(stored.length / 10);
    const withText = await img.clone().png({ compressionLevel: 9 }).withMetadata().withExif({ IFD0: { ImageDescription: "x".repeat(4000) } }).toBuffer();
    expect(withText.length - (await reencodePng(withText, { maxRawBytes: 1e8 }))).toBeGreaterThan(4000);
    // IHDR says 64x64 RGB (12 352 bytes of scanlines); its IDAT inflates to 50 MB.
    const b = Buffer.from(stored);
    const idatAt = b.indexOf("IDAT", 8, "latin1") - 4;
    const bomb = deflateSync(Buffer.alloc(50 * 1024 * 1024), { level: 9 });
    const idat = Buffer.alloc(12 + bomb.length);
    idat.writeUInt32BE(bomb.length, 0);
    idat.write("IDAT", 4, "latin1");
    bomb.copy(idat, 8);
    const bombed = Buffer.concat([b.subarray(0, idatAt), idat, Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82])]);
    await expect(reencodePng(bombed, { maxRawBytes: 1e8 })).rejects.toThrow(/buffer|length|larger/i);
    await expect(reencodePng(stored, { maxRawBytes: 1000 })).rejects.toThrow("its image data (12352 bytes raw) is over the re-encode limit of 1000 bytes");
  });
});

describe("iabSize", () => {
  it("the 2017 portfolio's fixed sizes, exactly", () => {
    for (const s of ["300x250", "728x90", "160x600", "970x250", "320x50", "300x1050", "1080x1920", "216x36"]) {
      const [w, h] = s.split("x").map(Number);
      expect(iabSize(w!, h!)).toBe(s);
    }
    expect(iabSize(600, 500)).toBe("");
    expect(iabSize(300, 600)).toBe(""); // delisted (Half Page) in 2017
    expect(iabSize(250, 300)).toBe("");
  });
});
