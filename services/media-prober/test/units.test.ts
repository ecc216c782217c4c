import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dominantColour } from "../src/colour.ts";
import { containerFacts, ebmlDocType } from "../src/container-info.ts";
import { judgeLetterboxing, parseCropdetect, type CropFrame } from "../src/letterbox.ts";
import { parseEbur128Summary, TRUE_PEAK_FLOOR } from "../src/loudness.ts";
import { moovAtomPosition, topLevelBoxes } from "../src/mp4-boxes.ts";
import { CC_PROBE_FRAMES, readPictureCaptions } from "../src/media-accessibility.ts";
import { sniffMedia } from "../src/sniff.ts";
import { aspectRatio, bitDepth, bitRateMode, definitionOf, displaySize, frameRate, rotationOf } from "../src/video-info.ts";

const text = (s: string) => new TextEncoder().encode(s);

describe("sniffMedia", () => {
  it.each([
    ["#EXTM3U\n#EXT-X-VERSION:3\n", "HLS playlist (not followed)"],
    ["\uFEFF  #EXTM3U\n", "HLS playlist (not followed)"],
    ['<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011">', "DASH manifest (not followed)"],
    ["<!DOCTYPE html><html><body>404</body></html>", "HTML document"],
    ["<html lang=en>", "HTML document"],
    ['<?xml version="1.0"?><VAST version="4.0"></VAST>', "VAST XML document"],
    ['<?xml version="1.0"?><feed/>', "XML document"],
    ['{"error":"nope"}', "JSON document"],
    ["just some words", "text file"],
  ])("%j → %s", (body, reason) => {
    expect(sniffMedia(text(body), body.length)).toEqual({ media: false, reason });
  });

  it("names images and archives", () => {
    expect(sniffMedia(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]), 6)).toEqual({ media: false, reason: "PNG image" });
    expect(sniffMedia(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), 4)).toEqual({ media: false, reason: "JPEG image" });
    expect(sniffMedia(text("PK\u0003\u0004rest"), 8)).toEqual({ media: false, reason: "zip archive" });
    expect(sniffMedia(new Uint8Array(), 0)).toEqual({ media: false, reason: "empty file" });
  });

  it("lets media signatures and unknown binary through to ffprobe", () => {
    const mp4 = new Uint8Array([0, 0, 0, 0x20, ...text("ftypisom")]);
    expect(sniffMedia(mp4, 100)).toMatchObject({ media: true, hint: "isobmff" });
    expect(sniffMedia(new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x01]), 100)).toMatchObject({ media: true, hint: "ebml" });
    expect(sniffMedia(text("ID3\u0004\u0000"), 100)).toMatchObject({ media: true });
    expect(sniffMedia(new Uint8Array([0x00, 0x01, 0x02, 0x80, 0x90]), 100)).toMatchObject({ media: true, hint: "unknown" });
  });
});

describe("moovAtomPosition", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cva-boxes-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const box = (type: string, payload = 8) => {
    const b = Buffer.alloc(8 + payload);
    b.writeUInt32BE(8 + payload, 0);
    b.write(type, 4, "latin1");
    return b;
  };
  const largeBox = (type: string, payload = 8) => {
    const b = Buffer.alloc(16 + payload);
    b.writeUInt32BE(1, 0);
    b.write(type, 4, "latin1");
    b.writeBigUInt64BE(BigInt(16 + payload), 8);
    return b;
  };

  it("reads the top-level order, 64-bit sizes and size-0 (to end of file) included", async () => {
    const f = join(dir, "a.mp4");
    await writeFile(f, Buffer.concat([box("ftyp"), box("free"), largeBox("mdat", 100), box("moov", 40)]));
    expect(await topLevelBoxes(f)).toEqual(["ftyp", "free", "mdat", "moov"]);
    expect(await moovAtomPosition(f)).toBe("end");
    const g = join(dir, "b.mp4");
    const lastToEnd = box("mdat", 50);
    lastToEnd.writeUInt32BE(0, 0);
    await writeFile(g, Buffer.concat([box("ftyp"), box("moov", 40), lastToEnd]));
    expect(await moovAtomPosition(g)).toBe("beginning");
  });

  it("stops at garbage and says nothing without both boxes", async () => {
    const f = join(dir, "c.mp4");
    await writeFile(f, Buffer.concat([box("ftyp"), Buffer.from([0, 0, 0, 3, 0xff, 0xfe, 0, 1]), box("moov")]));
    expect(await topLevelBoxes(f)).toEqual(["ftyp"]);
    expect(await moovAtomPosition(f)).toBe("");
  });
});

describe("parseEbur128Summary", () => {
  const summary = (i: string, lra: string, peak: string) => `[Parsed_ebur128_0 @ 0x1] Summary:

  Integrated loudness:
    I:         ${i} LUFS
    Threshold: -33.0 LUFS

  Loudness range:
    LRA:         ${lra} LU
    Threshold:   0.0 LUFS
    LRA low:     0.0 LUFS
    LRA high:    0.0 LUFS

  True peak:
    Peak:        ${peak} dBFS
`;

  it("reads integrated loudness, range and true peak from the Summary only", () => {
    const frameLine = "[Parsed_ebur128_0 @ 0x1] t: 1.0  TARGET:-23 LUFS  M: -10.0 S: -10.0  I: -10.0 LUFS  LRA: 0.0 LU\n";
    expect(parseEbur128Summary(frameLine + summary("-23.4", "5.2", "-1.3"))).toEqual({ lufs: -23.4, lra: 5.2, truePeak: -1.3 });
  });

  it("maps digital silence to the floors instead of -inf", () => {
    expect(parseEbur128Summary(summary("-70.0", "0.0", "-inf"))).toEqual({ lufs: -70, lra: 0, truePeak: TRUE_PEAK_FLOOR });
  });

  it("is undefined without a Summary (never a silent 0)", () => {
    expect(parseEbur128Summary("[Parsed_ebur128_0 @ 0x1] t: 1.0 I: -10.0 LUFS")).toBeUndefined();
  });
});

describe("letterboxing", () => {
  const frames = (n: number, f: CropFrame) => Array.from({ length: n }, () => ({ ...f }));

  it("parses cropdetect lines", () => {
    const log = "[Parsed_cropdetect_7 @ 0x55] x1:0 x2:1279 y1:90 y2:629 w:1280 h:540 x:0 y:90 pts:0 t:0.000000 crop=1280:540:0:90\n";
    expect(parseCropdetect(log)).toEqual([{ x1: 0, x2: 1279, y1: 90, y2: 629 }]);
  });

  it("stable bars top and bottom across the frames → letterboxed", () => {
    const v = judgeLetterboxing(frames(10, { x1: 0, x2: 1279, y1: 90, y2: 629 }), 1280, 720);
    expect(v).toMatchObject({ letterboxing: true, kind: "letterbox" });
  });

  it("stable bars left and right → pillarboxed (also letterboxing)", () => {
    const v = judgeLetterboxing(frames(10, { x1: 160, x2: 1119, y1: 0, y2: 719 }), 1280, 720);
    expect(v).toMatchObject({ letterboxing: true, kind: "pillarbox" });
  });

  it("full frame, a single dark edge, or black on all four sides → not letterboxed", () => {
    expect(judgeLetterboxing(frames(10, { x1: 0, x2: 1279, y1: 0, y2: 719 }), 1280, 720).letterboxing).toBe(false);
    expect(judgeLetterboxing(frames(10, { x1: 0, x2: 1279, y1: 200, y2: 719 }), 1280, 720).letterboxing).toBe(false);
    // A countdown on a black background: content in the middle only.
    expect(judgeLetterboxing(frames(10, { x1: 200, x2: 440, y1: 180, y2: 300 }), 640, 480).letterboxing).toBe(false);
  });

  it("bars in only a few frames, or edges that move, are not consistent", () => {
    const mixed = [...frames(5, { x1: 0, x2: 1279, y1: 90, y2: 629 }), ...frames(5, { x1: 0, x2: 1279, y1: 0, y2: 719 })];
    expect(judgeLetterboxing(mixed, 1280, 720).letterboxing).toBe(false);
    const moving = Array.from({ length: 10 }, (_, i) => ({ x1: 0, x2: 1279, y1: 40 + i * 20, y2: 679 - i * 20 }));
    expect(judgeLetterboxing(moving, 1280, 720).letterboxing).toBe(false);
  });

  it("ignores all-black frames", () => {
    const withFade = [...frames(3, { x1: 1279, x2: 0, y1: 719, y2: 0 }), ...frames(8, { x1: 0, x2: 1279, y1: 90, y2: 629 })];
    expect(judgeLetterboxing(withFade, 1280, 720)).toMatchObject({ letterboxing: true, framesJudged: 8 });
  });
});

describe("video facts", () => {
  it("definition uses 16:9-equivalent lines", () => {
    expect(definitionOf(640, 360)).toBe("SD");
    expect(definitionOf(640, 480)).toBe("SD");
    expect(definitionOf(1280, 720)).toBe("HD");
    expect(definitionOf(1280, 536)).toBe("HD");
    expect(definitionOf(1920, 1080)).toBe("FHD");
    expect(definitionOf(1080, 1920)).toBe("FHD");
    expect(definitionOf(2560, 1440)).toBe("QHD");
    expect(definitionOf(3840, 2160)).toBe("4K");
    expect(definitionOf(0, 0)).toBe("");
  });

  it("aspect ratio: reduced, common ratios within 1%, pixel aspect honoured", () => {
    expect(aspectRatio(1280, 720)).toBe("16:9");
    expect(aspectRatio(854, 480)).toBe("16:9");
    expect(aspectRatio(50, 28)).toBe("16:9");
    expect(aspectRatio(1080, 1920)).toBe("9:16");
    expect(aspectRatio(720, 576, "16:15")).toBe("4:3");
    expect(aspectRatio(1000, 300)).toBe("10:3");
  });

  it("rotation swaps the displayed size", () => {
    const s = { index: 0, width: 28, height: 50, side_data_list: [{ side_data_type: "Display Matrix", rotation: -90 }] };
    expect(rotationOf(s)).toBe(-90);
    expect(displaySize(s)).toEqual({ width: 50, height: 28 });
    expect(displaySize({ index: 0, width: 28, height: 50, tags: { rotate: "270" } })).toEqual({ width: 50, height: 28 });
    expect(displaySize({ index: 0, width: 1280, height: 720, tags: { rotate: "180" } })).toEqual({ width: 1280, height: 720 });
  });

  it("bit depth from bits_per_raw_sample, else from the pixel format", () => {
    expect(bitDepth({ index: 0, bits_per_raw_sample: "8", pix_fmt: "yuv420p" })).toBe(8);
    expect(bitDepth({ index: 0, pix_fmt: "yuv420p10le" })).toBe(10);
    expect(bitDepth({ index: 0, pix_fmt: "p010le" })).toBe(10);
    expect(bitDepth({ index: 0, pix_fmt: "yuv444p12le" })).toBe(12);
    expect(bitDepth({ index: 0, pix_fmt: "yuv420p" })).toBe(8);
  });

  it("frame rate from avg_frame_rate", () => {
    expect(frameRate({ index: 0, avg_frame_rate: "30000/1001" })).toBe(29.97);
    expect(frameRate({ index: 0, avg_frame_rate: "0/0", r_frame_rate: "25/1" })).toBe(25);
  });

  it("bit rate mode from one-second windows", () => {
    const cbr = Array.from({ length: 250 }, (_, i) => [i / 25, 1000 + (i % 5) * 10] as [number, number]);
    expect(bitRateMode(cbr)).toBe("CBR");
    const vbr = Array.from({ length: 250 }, (_, i) => [i / 25, i < 50 ? 5000 : 500] as [number, number]);
    expect(bitRateMode(vbr)).toBe("VBR");
    expect(bitRateMode(cbr.slice(0, 40))).toBe(""); // under three whole seconds
  });
});

describe("container facts and colour", () => {
  it("names MP4/MOV by major brand and WebM by DocType", () => {
    expect(containerFacts({ format_name: "mov,mp4,m4a,3gp,3g2,mj2", tags: { major_brand: "isom" } }, new Uint8Array(), true))
      .toMatchObject({ format: "mp4", mimeType: "video/mp4", formatName: "mov,mp4,m4a,3gp,3g2,mj2" });
    expect(containerFacts({ format_name: "mov,mp4,m4a,3gp,3g2,mj2", tags: { major_brand: "qt  " } }, new Uint8Array(), true))
      .toMatchObject({ format: "mov", mimeType: "video/quicktime" });
    const webmHead = new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84, ...text("webm")]);
    expect(ebmlDocType(webmHead)).toBe("webm");
    expect(containerFacts({ format_name: "matroska,webm" }, webmHead, false)).toMatchObject({ format: "webm", mimeType: "audio/webm" });
  });

  it("dominant colour is the fullest bucket's mean", () => {
    const px = (r: number, g: number, b: number, n: number) => Array.from({ length: n }, () => [r, g, b]).flat();
    expect(dominantColour(new Uint8Array([...px(250, 0, 0, 60), ...px(0, 0, 250, 40)]))).toBe("#fa0000");
    expect(dominantColour(new Uint8Array())).toBe("");
  });
});

describe("complete images only from a pass cut short", () => {
  it("a JPEG needs its SOI and EOI markers, a PNG its IEND chunk last", async () => {
    const { isCompleteJpeg, isCompletePng } = await import("../src/pass-files.ts");
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
    expect(isCompleteJpeg(jpeg)).toBe(true);
    expect(isCompleteJpeg(jpeg.subarray(0, jpeg.length - 1))).toBe(false);
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(13),
      Buffer.from([0, 0, 0, 0]), Buffer.from("IEND", "latin1"), Buffer.from([0xae, 0x42, 0x60, 0x82]),
    ]);
    expect(isCompletePng(png)).toBe(true);
    expect(isCompletePng(png.subarray(0, png.length - 12))).toBe(false);
  });
});

describe("captions in the pictures from a video pass's log (readPictureCaptions)", () => {
  const frame = (n: number) => `[showinfo@cc @ 0x55fe] n:   ${n} pts:   ${n * 512} pts_time:${n / 25} pos: 48 fmt:yuv420p iskey:0 type:P\n`;
  const cc = "[showinfo@cc @ 0x55fe]   side data - A/53 closed captions (3 bytes)\n";
  it("caption side data on any of the first frames: captions", () => {
    expect(readPictureCaptions(frame(0) + frame(1) + cc, false)).toBe(true);
  });
  it("eight frames without, or a pass that finished: none; fewer frames from a pass that failed: not measured", () => {
    const eight = Array.from({ length: CC_PROBE_FRAMES }, (_, i) => frame(i)).join("");
    expect(readPictureCaptions(eight, false)).toBe(false);
    expect(readPictureCaptions(frame(0), true)).toBe(false);
    expect(readPictureCaptions(frame(0) + frame(1), false)).toBeUndefined();
    // Another showinfo of the pass (the stream's ends) is not the caption branch.
    expect(readPictureCaptions("[Parsed_showinfo_7 @ 0x1]   side data - A/53 closed captions (3 bytes)\n", false)).toBeUndefined();
  });
});
