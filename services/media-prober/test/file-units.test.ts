import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  leadingMs, longestFreezeMs, parseBlackdetect, parseFreezedetect, parseShowinfoTimes, parseSilencedetect, trailingMs,
} from "../src/content.ts";
import { parseClipping } from "../src/file-audio-pass.ts";
import { FILE_VIDEO_PASS_FILTER_THREADS, FILE_VIDEO_PASS_MOST_THREADS, fileVideoPassDecodeThreads, fullDecodeThreads } from "../src/file-limits.ts";
import { planFileVideoPass } from "../src/file-video-pass.ts";
import { planFlashFrames } from "../src/flash-frames.ts";
import { planFlashPass } from "../src/flash-pass.ts";
import { judgeScanType, parseIdet } from "../src/interlace.ts";
import { judgeLetterboxing } from "../src/letterbox.ts";
import { readMp4VideoIndex } from "../src/mp4-index.ts";
import { audioBitDepth, chromaSubsampling, colourTag, frameRateMode, headerScanType, isHdrTransfer, keyframeIntervalMs } from "../src/stream-facts.ts";
import { demuxerTruncation, endsEarly, packetsEndEarly, wavDataShort } from "../src/truncation.ts";

// The pure parts of the raw file measurement: what is read from ffprobe's description, the packet times and the
// filters' logs (log lines as ffmpeg 5.1 writes them).

describe("stream facts", () => {
  it("chroma subsampling from the pixel format", () => {
    const cases: Array<[string, string]> = [
      ["yuv420p", "4:2:0"], ["yuvj420p", "4:2:0"], ["yuv420p10le", "4:2:0"], ["nv12", "4:2:0"], ["p010le", "4:2:0"], ["yuva420p", "4:2:0"],
      ["yuv422p10le", "4:2:2"], ["yuvj422p", "4:2:2"], ["uyvy422", "4:2:2"], ["v210", "4:2:2"], ["yuv444p12le", "4:4:4"],
      ["yuv411p", "4:1:1"], ["yuv440p", "4:4:0"], ["rgb24", ""], ["gbrp10le", ""], ["gray", ""], ["", ""],
    ];
    for (const [pf, want] of cases) expect(chromaSubsampling(pf), pf).toBe(want);
  });

  it("colour tags: unspecified is empty; PQ and HLG are HDR, BT.709 and BT.2020's SDR transfers are not", () => {
    expect([colourTag("unknown"), colourTag(undefined), colourTag("bt709")]).toEqual(["", "", "bt709"]);
    expect([isHdrTransfer("smpte2084"), isHdrTransfer("arib-std-b67"), isHdrTransfer("bt709"), isHdrTransfer("bt2020-10")]).toEqual([true, true, false, false]);
  });

  it("frame rate mode: constant within 1 % or 1.5 ticks (Matroska's 1 ms stores 29.97 as 33/34 ms), else variable", () => {
    const mkv = Array.from({ length: 60 }, (_, i) => Math.round((i * 1001) / 30) / 1000);
    expect(frameRateMode(mkv, "1/1000")).toBe("constant");
    const mp4 = Array.from({ length: 60 }, (_, i) => (i * 1001) / 30000);
    expect(frameRateMode(mp4.reverse(), "1/30000")).toBe("constant"); // order does not matter (B-frames arrive out of order)
    const vfr = Array.from({ length: 60 }, (_, i) => (i < 30 ? i / 30 : 1 + (i - 30) / 15));
    expect(frameRateMode(vfr, "1/15360")).toBe("variable");
    expect(frameRateMode([0, 0.04], "1/25")).toBe("");
  });

  it("keyframe interval: the longest gap, the last keyframe to the end included", () => {
    expect(keyframeIntervalMs([0, 2, 4, 6], 0, 7)).toBe(2000);
    expect(keyframeIntervalMs([0, 1, 4], 0, 5)).toBe(3000);
    expect(keyframeIntervalMs([0, 2], 0, 10)).toBe(8000);
    expect(keyframeIntervalMs([0], 0, 15.16)).toBe(15160);
    expect(keyframeIntervalMs([], 0, 10)).toBeUndefined();
  });

  it("scan type the header states; audio bit depth as stored", () => {
    expect([headerScanType({ index: 0, field_order: "tt" }), headerScanType({ index: 0, field_order: "progressive" }), headerScanType({ index: 0 })])
      .toEqual(["interlaced", "progressive", ""]);
    expect(audioBitDepth({ index: 0, codec_name: "pcm_s24le", bits_per_sample: 24 })).toBe(24);
    expect(audioBitDepth({ index: 0, codec_name: "flac", bits_per_raw_sample: "16" })).toBe(16);
    expect(audioBitDepth({ index: 0, codec_name: "aac", bits_per_sample: 0 })).toBe(0);
  });
});

describe("content events", () => {
  const log = [
    "[blackdetect @ 0x1] black_start:0 black_end:1 black_duration:1",
    "[freezedetect @ 0x2] lavfi.freezedetect.freeze_start: 0",
    "[freezedetect @ 0x2] lavfi.freezedetect.freeze_duration: 1",
    "[freezedetect @ 0x2] lavfi.freezedetect.freeze_end: 1",
    "[freezedetect @ 0x2] lavfi.freezedetect.freeze_start: 1.6",
    "[freezedetect @ 0x2] lavfi.freezedetect.freeze_duration: 1.2",
    "[freezedetect @ 0x2] lavfi.freezedetect.freeze_end: 2.8",
    "[blackdetect @ 0x1] black_start:3.1 black_end:3.6 black_duration:0.5",
    "[Parsed_showinfo_9 @ 0x3] n:   0 pts:      0 pts_time:0       pos: 306 fmt:yuv420p",
    "[Parsed_showinfo_9 @ 0x3] n:  38 pts:  46080 pts_time:3.6     pos: -1 fmt:yuv420p",
    "[silencedetect @ 0x4] silence_start: 0",
    "[silencedetect @ 0x4] silence_end: 0.998375 | silence_duration: 0.998375",
    "[silencedetect @ 0x4] silence_start: 3.00087",
    "[silencedetect @ 0x4] silence_end: 3.60267 | silence_duration: 0.601792",
  ].join("\n");

  it("parses the runs and the analysed stream's first frame and end (the sentinel)", () => {
    expect(parseBlackdetect(log)).toEqual([{ start: 0, end: 1 }, { start: 3.1, end: 3.6 }]);
    expect(parseFreezedetect(log)).toEqual([{ start: 0, end: 1 }, { start: 1.6, end: 2.8 }]);
    expect(parseSilencedetect(log)).toEqual([{ start: 0, end: 0.998375 }, { start: 3.00087, end: 3.60267 }]);
    expect(parseShowinfoTimes(log)).toEqual([0, 3.6]);
    // A freeze the pass never saw end (no sentinel reached it) has no known length.
    expect(parseFreezedetect("lavfi.freezedetect.freeze_start: 2")).toEqual([]);
  });

  it("leading and trailing runs only where they touch the ends", () => {
    const blacks = parseBlackdetect(log);
    expect(leadingMs(blacks, 0, 0.0005)).toBe(1000);
    expect(trailingMs(blacks, 3.6, 0.0005)).toBe(500);
    // A run that ends at the last frame's start (the last frame is not black) does not reach the sentinel.
    expect(trailingMs([{ start: 3.1, end: 3.56 }], 3.6, 0.0005)).toBe(0);
    expect(leadingMs([{ start: 0.5, end: 1 }], 0, 0.0005)).toBe(0);
  });

  it("the longest freeze leaves black out, and what is left must still last the detector's minimum", () => {
    const blacks = parseBlackdetect(log);
    expect(longestFreezeMs(parseFreezedetect(log), blacks, 0.5)).toBe(1200);
    expect(longestFreezeMs([{ start: 0, end: 1.04 }], [{ start: 0, end: 1 }], 0.5)).toBe(0);
    expect(longestFreezeMs([{ start: 0, end: 3 }], [{ start: 1, end: 1.5 }], 0.5)).toBe(1500);
  });

  it("clipped samples: the per-channel infinities astats counted, summed; its sample count", () => {
    const astats = [
      "[Parsed_astats_3 @ 0x5] Channel: 1", "[Parsed_astats_3 @ 0x5] Number of Infs: 68000",
      "[Parsed_astats_3 @ 0x5] Channel: 2", "[Parsed_astats_3 @ 0x5] Number of Infs: 12",
      "[Parsed_astats_3 @ 0x5] Overall", "[Parsed_astats_3 @ 0x5] Number of samples: 96000",
    ].join("\n");
    expect(parseClipping(astats)).toEqual({ clipped: 68012, samples: 96000 });
    expect(parseClipping("nothing")).toEqual({});
  });
});

describe("scan type and bars", () => {
  it("idet's last multi-frame summary decides once 10 frames are classified; else the header", () => {
    const log = [
      "[Parsed_idet_13 @ 0x1] Multi frame detection: TFF:     0 BFF:     0 Progressive:     0 Undetermined:     0",
      "[Parsed_idet_13 @ 0x2] Multi frame detection: TFF:    50 BFF:     0 Progressive:     2 Undetermined:     8",
    ].join("\n");
    expect(parseIdet(log)).toEqual({ tff: 50, bff: 0, progressive: 2, undetermined: 8 });
    expect(judgeScanType(parseIdet(log), "progressive")).toBe("interlaced");
    expect(judgeScanType({ tff: 0, bff: 0, progressive: 45, undetermined: 5 }, "interlaced")).toBe("progressive");
    expect(judgeScanType({ tff: 3, bff: 0, progressive: 2, undetermined: 90 }, "progressive")).toBe("progressive");
    expect(judgeScanType(undefined, "")).toBe("");
  });

  it("bar sizes are the median edges of the frames with bars", () => {
    const frames = Array.from({ length: 10 }, (_, i) => ({ x1: 0, x2: 319, y1: i === 0 ? 28 : 30, y2: 209 }));
    expect(judgeLetterboxing(frames, 320, 240)).toMatchObject({ letterboxing: true, kind: "letterbox", bars: { top: 30, bottom: 30, left: 0, right: 0 } });
    const pillars = Array.from({ length: 10 }, () => ({ x1: 40, x2: 279, y1: 0, y2: 239 }));
    expect(judgeLetterboxing(pillars, 320, 240)).toMatchObject({ kind: "pillarbox", bars: { top: 0, bottom: 0, left: 40, right: 40 } });
    expect(judgeLetterboxing([{ x1: 0, x2: 319, y1: 0, y2: 239 }], 320, 240).bars).toEqual({ top: 0, bottom: 0, left: 0, right: 0 });
  });
});

describe("truncation", () => {
  let dir: string;
  beforeAll(async () => void (dir = await mkdtemp(join(tmpdir(), "cva-trunc-"))));
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  const wav = (dataLen: number, actual: number) => {
    const h = Buffer.alloc(44);
    h.write("RIFF", 0, "latin1");
    h.writeUInt32LE(Math.min(36 + dataLen, 0xffffffff), 4);
    h.write("WAVEfmt ", 8, "latin1");
    h.writeUInt32LE(16, 16);
    h.write("data", 36, "latin1");
    h.writeUInt32LE(dataLen, 40);
    return Buffer.concat([h, Buffer.alloc(actual)]);
  };

  it("a WAV whose data chunk claims more than the file holds", async () => {
    await writeFile(join(dir, "short.wav"), wav(1000, 500));
    await writeFile(join(dir, "whole.wav"), wav(1000, 1000));
    await writeFile(join(dir, "streamed.wav"), wav(0xffffffff, 10));
    expect(await wavDataShort(join(dir, "short.wav"))).toBe(true);
    expect(await wavDataShort(join(dir, "whole.wav"))).toBe(false);
    expect(await wavDataShort(join(dir, "streamed.wav"))).toBe(false);
  });

  it("the demuxer's words, and packets that stop well before the declared duration", () => {
    expect(demuxerTruncation("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x1] stream 1, offset 0x31844: partial file")).toMatch(/past the end/);
    expect(demuxerTruncation("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x1] moov atom not found")).toMatch(/moov/);
    expect(demuxerTruncation("[matroska,webm @ 0x1] File ended prematurely")).toMatch(/Matroska/);
    expect(demuxerTruncation("")).toBeUndefined();
    expect([endsEarly(1.98, 4.05), endsEarly(29.5, 30), endsEarly(9.6, 10), endsEarly(1, 0)]).toEqual([true, false, false, false]);
    // An hour of AAC at 48 kHz (1024 samples a packet): 168 750 packet times, cut at 40 minutes of the 60 declared.
    const hour = Array.from({ length: 168_750 }, (_, i) => (i * 1024) / 48000);
    expect(packetsEndEarly(hour, 3600)).toBeUndefined();
    expect(packetsEndEarly(hour.slice(0, 112_500), 3600)).toBeCloseTo(2400, 0);
    expect(packetsEndEarly([NaN], 10)).toBeUndefined();
  });
});

describe("the video pass's threads", () => {
  // These settings are exact (the same outputs byte for byte) and only about speed (file-limits.ts says why and what
  // was measured); pinned so that the 8K address-space bound and the filters' threading are not lost by accident.
  const threadsOf = (args: string[]) => Number(args[args.indexOf("-threads") + 1]);
  const plan = (pixels: number) => planFileVideoPass({ input: "/x/file", outDir: "/x", videoIndex: 0, duration: 30, keyframes: [0, 10, 20], pixels });

  it("input 0 gets 3 frame threads a core (at most 6) up to 1440p and at most 3 above; only the 480 px scale is slice-threaded", () => {
    expect(fullDecodeThreads(1920 * 1080)).toBe(Math.max(2, Math.min(4, availableParallelism() + 2)));
    expect(fullDecodeThreads(2560 * 1440)).toBe(fullDecodeThreads(1920 * 1080));
    expect(fullDecodeThreads(3840 * 2160)).toBe(Math.max(2, Math.min(3, availableParallelism() + 1)));
    expect(fullDecodeThreads(0)).toBe(fullDecodeThreads(8192 * 4320));
    expect(fileVideoPassDecodeThreads(1920 * 1080)).toBe(Math.max(fullDecodeThreads(1920 * 1080), Math.min(FILE_VIDEO_PASS_MOST_THREADS, availableParallelism() * 3)));
    expect(fileVideoPassDecodeThreads(2560 * 1440)).toBe(fileVideoPassDecodeThreads(1920 * 1080));
    expect(fileVideoPassDecodeThreads(3840 * 2160)).toBe(fullDecodeThreads(3840 * 2160));
    expect(fileVideoPassDecodeThreads(0)).toBe(fullDecodeThreads(0));
    const args = plan(1920 * 1080).args;
    expect(threadsOf(args)).toBe(fileVideoPassDecodeThreads(1920 * 1080));
    expect(args.slice(args.indexOf("-filter_complex_threads"), args.indexOf("-filter_complex_threads") + 2)).toEqual(["-filter_complex_threads", String(FILE_VIDEO_PASS_FILTER_THREADS)]);
    // The graph's threads are the small scale's: the other slice-threaded filters on input 0's frames run inline.
    const graph = args[args.indexOf("-filter_complex") + 1]!;
    expect(graph).toMatch(/scale=w='min\(480,iw\)':h=-2:flags=area[,\[]/);
    expect(graph).toMatch(/blackdetect=[^,;\[]*:threads=1/);
    const withFlash = planFileVideoPass({
      input: "/x/file", outDir: "/x", videoIndex: 0, duration: 30, keyframes: [0, 10, 20], pixels: 1920 * 1080,
      flash: planFlashFrames({ outDir: "/x", width: 1920, height: 1080, frameRate: "30/1" }),
    }).args;
    expect(withFlash[withFlash.indexOf("-filter_complex") + 1]).toMatch(/scale=48:27:flags=area:threads=1,/);
    expect(threadsOf(plan(7680 * 4320).args)).toBeLessThanOrEqual(3);
  });

  it("the VAST flash pass, a full decode too, gets the same decoder threads and unthreaded filters", () => {
    const flashArgs = (width: number, height: number) =>
      planFlashPass("/x/file", 0, planFlashFrames({ outDir: "/x", width, height, frameRate: "25/1" })!).args;
    const args = flashArgs(1280, 720);
    expect(threadsOf(args)).toBe(fullDecodeThreads(1280 * 720));
    expect(args.filter((a) => a === "-threads")).toHaveLength(1);
    expect(args.slice(args.indexOf("-filter_complex_threads"), args.indexOf("-filter_complex_threads") + 2)).toEqual(["-filter_complex_threads", "1"]);
    expect(threadsOf(flashArgs(7680, 4320))).toBeLessThanOrEqual(3);
    // The VAST whitelists still guard the input (the raw file's wider decoder list is not for VAST media).
    expect(args[args.indexOf("-codec_whitelist") + 1]).not.toContain("prores");
  });
});

describe("the MP4 index the early pass is planned from (mp4-index.ts)", () => {
  const box = (type: string, ...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + body.length, 0);
    head.write(type, 4, "latin1");
    return Buffer.concat([head, body]);
  };
  const u32 = (...xs: number[]) => Buffer.concat(xs.map((x) => { const b = Buffer.alloc(4); b.writeUInt32BE(x >>> 0); return b; }));
  const full = (type: string, ...parts: Buffer[]) => box(type, u32(0), ...parts); // version 0, no flags
  const identity = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);
  const tkhd = (matrix: Buffer = identity) => full("tkhd", u32(0, 0, 1, 0, 0, 0, 0), Buffer.alloc(8), matrix, u32(320 << 16, 240 << 16));
  const avc1 = box("avc1", Buffer.alloc(6), Buffer.from([0, 1]), Buffer.alloc(16), Buffer.from([1, 64, 0, 240]), Buffer.alloc(50));
  interface Trak { handler?: string; stts: Array<[number, number]>; ctts?: Array<[number, number]>; stss?: number[]; elst?: Array<[number, number]>; matrix?: Buffer }
  const trak = (t: Trak) => box("trak",
    tkhd(t.matrix),
    ...(t.elst ? [box("edts", full("elst", u32(t.elst.length), ...t.elst.map(([seg, media]) => u32(seg, media, 0x10000))))] : []),
    box("mdia",
      full("mdhd", u32(0, 0, 12800, t.stts.reduce((n, [c, d]) => n + c * d, 0)), u32(0)),
      full("hdlr", u32(0), Buffer.from(t.handler ?? "vide", "latin1"), Buffer.alloc(13)),
      box("minf", box("stbl",
        full("stsd", u32(1), avc1),
        full("stts", u32(t.stts.length), ...t.stts.map(([c, d]) => u32(c, d))),
        ...(t.ctts ? [full("ctts", u32(t.ctts.length), ...t.ctts.map(([c, o]) => u32(c, o)))] : []),
        ...(t.stss ? [full("stss", u32(t.stss.length), ...t.stss.map((n) => u32(n)))] : []),
      )),
    ));
  const mp4 = (...traks: Buffer[]) => Buffer.concat([box("ftyp", Buffer.from("isom\0\0\0\0isom", "latin1")), box("moov", full("mvhd", u32(0, 0, 1000, 2000), Buffer.alloc(80)), ...traks), box("mdat")]);
  let dir: string;
  beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), "cva-mp4-index-")); });
  afterAll(async () => { await rm(dir, { recursive: true, force: true }); });
  const index = async (bytes: Buffer) => {
    const file = join(dir, `f${Math.random().toString(36).slice(2)}.mp4`);
    await writeFile(file, bytes);
    return readMp4VideoIndex(file);
  };

  it("reads what the pass is planned from: index, codec, size, r_frame_rate, duration, keyframe times", async () => {
    // 2 s at 25 fps (12800 ticks a second, 512 a frame), keyframes at samples 1 and 26.
    expect(await index(mp4(trak({ stts: [[50, 512]], stss: [1, 26] })))).toEqual({
      index: 0, codecName: "h264", width: 320, height: 240, quarterTurn: false, frameRate: "25/1", duration: 2, keyframes: [0, 1],
    });
    // An audio trak first: the video is stream 1. A quarter-turn matrix. No stss: every sample is a keyframe.
    const turned = u32(0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x40000000);
    expect(await index(mp4(trak({ handler: "soun", stts: [[10, 1024]] }), trak({ stts: [[3, 512]], matrix: turned })))).toMatchObject({
      index: 1, quarterTurn: true, keyframes: [0, 0.04, 0.08],
    });
    // B-frames: composition offsets of 2 frames, the edit list starting at the first presented frame (as x264 + ffmpeg
    // write it): the first keyframe at 0, the next at 1 s; the duration is the edit's (2 s of the movie's 1000/s).
    expect(await index(mp4(trak({ stts: [[50, 512]], ctts: [[50, 1024]], stss: [1, 26], elst: [[2000, 1024]] })))).toMatchObject({ duration: 2, keyframes: [0, 1] });
  });

  it("gives nothing to plan from where it would guess: variable rate, two video tracks, B-frames without an edit list, hostile counts", async () => {
    expect(await index(mp4(trak({ stts: [[10, 512], [10, 1024]] })))).toBeUndefined();
    expect(await index(mp4(trak({ stts: [[10, 512]] }), trak({ stts: [[10, 512]] })))).toBeUndefined();
    expect(await index(mp4(trak({ stts: [[10, 512]], ctts: [[10, 1024]] })))).toBeUndefined();
    // 4 billion samples claimed in 8 bytes; a sync table out of order; 65 traks: refused without a loop over the claim.
    const t = performance.now();
    expect(await index(mp4(trak({ stts: [[0xffffffff, 1]] })))).toBeUndefined();
    expect(await index(mp4(trak({ stts: [[50, 512]], stss: [26, 1] })))).toBeUndefined();
    expect(await index(mp4(...Array.from({ length: 65 }, () => trak({ handler: "soun", stts: [[1, 1]] }))))).toBeUndefined();
    expect(performance.now() - t).toBeLessThan(2_000);
    // Not an MP4, an empty file, a moov cut short.
    expect(await index(Buffer.from("<html></html>"))).toBeUndefined();
    expect(await index(Buffer.alloc(0))).toBeUndefined();
    expect(await index(mp4(trak({ stts: [[50, 512]] })).subarray(0, 60))).toBeUndefined();
  });
});
