import { chmod, chown, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { toolUser } from "../src/exec.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryArtifactSink } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileProber, type FileFacts, type FileKind, type FileProber, type FileProbeOutcome } from "../src/file-prober.ts";
import { AMPLITUDE_10, AMPLITUDE_23, CLIPPED_SAMPLES, makeFileMedia } from "./file-fixtures.ts";
import { ffmpeg, isJpeg, isPng, jpegSize } from "./fixtures.ts";
import { readMp4VideoIndex } from "../src/mp4-index.ts";

// Known truth for raw video and audio files (issue 19 §2, §4, §6): each fixture is made to be something (file-fixtures.ts)
// and measured here. Tolerances: one frame (40 ms at 25 fps) for picture events, a few ms for PCM silences, 0.3 LU
// for tones whose loudness follows from theory.

const artifacts = createMemoryArtifactSink();
let media: string;
let work: string;
let prober: FileProber;

beforeAll(async () => {
  media = await mkdtemp(join(tmpdir(), "cva-file-fixtures-"));
  work = await mkdtemp(join(tmpdir(), "cva-file-work-"));
  await makeFileMedia(media);
  // As root the decoders run as an unprivileged user (exec.ts toolUser), who must reach the fixtures and job folders.
  await chmod(media, 0o711);
  await chmod(work, 0o711);
  prober = createFileProber({ artifacts });
}, 180_000);

afterAll(async () => {
  await rm(media, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

async function measure(name: string, kind: FileKind, p: FileProber = prober): Promise<FileProbeOutcome> {
  const dir = await mkdtemp(join(work, "job-"));
  const user = toolUser();
  if (user) await chown(dir, user.uid, user.gid);
  try {
    return await p.probeFile(join(media, name), kind, { dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function facts(name: string, kind: FileKind): Promise<FileFacts> {
  const r = await measure(name, kind);
  if ("refused" in r) throw new Error(`${name} refused: ${r.refused}`);
  return r.facts;
}

const near = (actual: bigint | number | undefined, expected: number, tolerance: number) =>
  expect(Math.abs(Number(actual) - expected), `${actual} vs ${expected} ± ${tolerance}`).toBeLessThanOrEqual(tolerance);

describe("raw video files: the picture", () => {
  it("interlaced: woven fields read as interlaced, whatever the header says; progressive frames flagged interlaced read progressive", async () => {
    const [flagged, unflagged, progressiveFlagged] = await Promise.all([
      facts("interlaced.mp4", "video"), facts("interlaced-unflagged.mp4", "video"), facts("progressive-flagged.mp4", "video"),
    ]);
    expect(flagged.fileInfo.video!.scanType).toBe("interlaced");
    expect(unflagged.fileInfo.video!.scanType).toBe("interlaced");
    expect(progressiveFlagged.fileInfo.video!.scanType).toBe("progressive");
  });

  it("4:2:2 10-bit H.264: bit depth and chroma subsampling from the pixel format, SDR", async () => {
    const v = (await facts("422-10bit.mp4", "video")).fileInfo.video!;
    expect([v.codec, v.profile, v.pixFmt, v.bitDepth, v.chromaSubsampling]).toEqual(["h264", "High 4:2:2", "yuv422p10le", 10, "4:2:2"]);
    expect(v.hdr).toBe(false);
    expect(v.scanType).toBe("progressive");
  });

  it("HDR PQ HEVC: BT.2020 primaries and matrix, SMPTE ST 2084 transfer → hdr", async () => {
    const v = (await facts("hdr-pq.mp4", "video")).fileInfo.video!;
    expect([v.codec, v.bitDepth, v.chromaSubsampling]).toEqual(["hevc", 10, "4:2:0"]);
    expect([v.colorPrimaries, v.colorTransfer, v.colorSpace, v.hdr]).toEqual(["bt2020", "smpte2084", "bt2020nc", true]);
  });

  it("29.97 fps: 30000/1001 reads 29.97, constant; a keyframe every 15 frames is a 500.5 ms keyframe interval", async () => {
    const f = await facts("ntsc.mp4", "video");
    const v = f.fileInfo.video!;
    expect([v.frameRate, v.frameRateFraction, v.frameRateMode]).toEqual([29.97, "30000/1001", "constant"]);
    near(v.keyframeIntervalMs, 500.5, 1);
    expect(v.scanType).toBe("progressive");
    expect(f.durationMs).toBe(2002);
    // The film strip's tiles: the keyframes nearest to 0, 0.2, …, 1.8 s — each of the four once, with its time.
    expect(f.filmStripTimesMs).toHaveLength(4);
    f.filmStripTimesMs.forEach((t, i) => near(t, [0, 500.5, 1001, 1501.5][i]!, 1));
  });

  it("variable frame rate: frames 1/30 s apart, then 2/30 s apart", async () => {
    const v = (await facts("vfr.mp4", "video")).fileInfo.video!;
    expect(v.frameRateMode).toBe("variable");
  });

  it("letterboxed: 30 px bars top and bottom; pillarboxed: 40 px bars left and right; full frame: no bars", async () => {
    const [lb, pb, full] = await Promise.all([facts("letterbox.mp4", "video"), facts("pillarbox.mp4", "video"), facts("ntsc.mp4", "video")]);
    expect(lb.fileInfo.video).toMatchObject({ letterboxing: true, pillarboxing: false, bars: { top: 30, bottom: 30, left: 0, right: 0 } });
    expect(pb.fileInfo.video).toMatchObject({ letterboxing: false, pillarboxing: true, bars: { top: 0, bottom: 0, left: 40, right: 40 } });
    expect(full.fileInfo.video).toMatchObject({ letterboxing: false, pillarboxing: false, bars: { top: 0, bottom: 0, left: 0, right: 0 } });
    expect(lb.notMeasured).not.toContain("file_info.video.letterboxing");
  });

  it("ProRes 422 in MOV (a CTV mezzanine): measured, 4:2:2 10-bit, every frame a keyframe (40 ms at 25 fps)", async () => {
    const f = await facts("prores.mov", "video");
    expect([f.fileInfo.container!.format, f.mimeType]).toEqual(["mov", "video/quicktime"]);
    const v = f.fileInfo.video!;
    expect([v.codec, v.bitDepth, v.chromaSubsampling]).toEqual(["prores", 10, "4:2:2"]);
    expect(Number(v.keyframeIntervalMs)).toBe(40);
  });
});

describe("raw video files: what happens at the ends", () => {
  let slate: FileFacts;
  beforeAll(async () => {
    slate = await facts("slate.mov", "video");
  });

  it("1 s black slate and 0.5 s of black at the end; 1 s silence before the sound and 0.5 s after", () => {
    const c = slate.fileInfo.content!;
    near(c.leadingBlackMs, 1000, 40);
    near(c.trailingBlackMs, 500, 40);
    near(c.leadingSilenceMs, 1000, 5);
    near(c.trailingSilenceMs, 500, 5);
    // The black slate is a run of identical frames, but it is reported as black, not as a freeze.
    expect(Number(c.frozenFramesMs)).toBe(0);
    expect(slate.notMeasured).toEqual([]);
    expect(slate.analysisError).toBe("");
  });

  it("the tone between the silences reads about -23 LUFS, with its true peak; nothing clips", () => {
    const a = slate.fileInfo.audio!;
    // Not exactly -23: BS.1770's 400 ms blocks that straddle the tone's start and end are part silence, below -23
    // but above the relative gate, and pull the integrated figure down (-23.6 measured); the pure tones below are exact.
    near(a.loudness!.lufs, -23, 1);
    near(a.loudness!.truePeak, -23, 0.3);
    expect(Number(a.clipping)).toBe(0);
    expect([a.codec, a.bitDepth, a.channels, a.sampleRate]).toEqual(["pcm_s16le", 16, 2, 48000]);
  });

  it("the screenshot is the first visible frame, not the slate; poster, film strip and waveform are stored", () => {
    for (const img of [slate.firstFrame, slate.thumbnail, slate.poster, slate.filmStrip]) {
      const stored = artifacts.get(img!.id)!;
      expect(isJpeg(stored.data)).toBe(true);
      expect(Number(img!.bytes)).toBe(stored.data.length);
    }
    expect(jpegSize(artifacts.get(slate.firstFrame!.id)!.data)).toEqual({ width: 320, height: 240 });
    // The slate is black; the first visible frame is testsrc2's, whose dominant colour is not.
    expect(slate.firstFrame!.color).not.toBe("#000000");
    expect(isPng(artifacts.get(slate.audioWave!.id)!.data)).toBe(true);
  });

  it("a frame held for 1.5 s is the longest freeze (39 identical frames: 1.56 s)", async () => {
    const f = await facts("freeze.mp4", "video");
    near(f.fileInfo.content!.frozenFramesMs, 1560, 40);
    expect(Number(f.fileInfo.content!.leadingBlackMs)).toBe(0);
    expect(Number(f.fileInfo.content!.trailingBlackMs)).toBe(0);
  });

  it("a silent video: no audio info and its silence fields listed as not measured (there is no audio to measure)", async () => {
    const f = await facts("letterbox.mp4", "video");
    expect(f.fileInfo.audio).toBeUndefined();
    expect(f.audioWave).toBeUndefined();
    expect(f.notMeasured.sort()).toEqual(["file_info.content.leading_silence_ms", "file_info.content.trailing_silence_ms"]);
  });
});

describe("raw audio files", () => {
  it("1 s of leading silence (PCM: exactly 1000 ms), no trailing silence", async () => {
    const f = await facts("lead-silence.wav", "audio");
    expect(Number(f.fileInfo.content!.leadingSilenceMs)).toBe(1000);
    expect(Number(f.fileInfo.content!.trailingSilenceMs)).toBe(0);
    expect(f.fileInfo.video).toBeUndefined();
    expect(f.durationMs).toBe(3000);
    expect([f.fileInfo.container!.format, f.mimeType]).toEqual(["wav", "audio/wav"]);
    near(f.fileInfo.audio!.loudness!.lufs, -23, 1);
  });

  it("a -23 LUFS tone (24-bit WAV, 10 s) and a -10 LUFS tone (FLAC, 3 s): loudness, range and true peak from theory", async () => {
    const [quiet, loud] = await Promise.all([facts("tone-23.wav", "audio"), facts("tone-10.flac", "audio")]);
    near(quiet.fileInfo.audio!.loudness!.lufs, 20 * Math.log10(AMPLITUDE_23), 0.3);
    near(quiet.fileInfo.audio!.loudness!.truePeak, -23, 0.3);
    expect(quiet.fileInfo.audio!.loudness!.lra).toBeLessThan(1);
    expect(quiet.fileInfo.audio!.bitDepth).toBe(24);
    near(loud.fileInfo.audio!.loudness!.lufs, 20 * Math.log10(AMPLITUDE_10), 0.3);
    near(loud.fileInfo.audio!.loudness!.truePeak, -10, 0.3);
    expect(Number(quiet.fileInfo.audio!.clipping) + Number(loud.fileInfo.audio!.clipping)).toBe(0);
  });

  it("a clipped tone: every sample at a rail is counted (68 000 of channel 1's 96 000), channel 2 adds none", async () => {
    const a = (await facts("clipped.wav", "audio")).fileInfo.audio!;
    expect(Number(a.clipping)).toBe(CLIPPED_SAMPLES);
    expect(a.loudness!.truePeak).toBeGreaterThanOrEqual(0);
  });

  it("mono AAC and 5.1 FLAC: channels and layout", async () => {
    const [mono, surround] = await Promise.all([facts("mono.m4a", "audio"), facts("surround.flac", "audio")]);
    expect(mono.fileInfo.audio).toMatchObject({ codec: "aac", channels: 1, channelLayout: "mono", sampleRate: 44100, bitDepth: 0 });
    expect(mono.mimeType).toBe("audio/mp4");
    expect(surround.fileInfo.audio).toMatchObject({ codec: "flac", channels: 6, channelLayout: "5.1", sampleRate: 48000, bitDepth: 16 });
    expect(surround.audioWave).toBeDefined();
  });
});

describe("refused files: a clear cause, before anything is decoded", () => {
  const refusal = async (name: string, kind: FileKind) => {
    const started = performance.now();
    const r = await measure(name, kind);
    return { refused: "refused" in r ? r.refused : undefined, ms: performance.now() - started };
  };

  it("not media of the kind: HTML and a zip named .mp4, audio only as video, video as audio, empty", async () => {
    expect((await refusal("page.mp4", "video")).refused).toBe("not a video file: HTML document");
    expect((await refusal("archive.mp4", "video")).refused).toBe("not a video file: zip archive");
    expect((await refusal("page.mp4", "audio")).refused).toBe("not an audio file: HTML document");
    expect((await refusal("lead-silence.wav", "video")).refused).toBe("not a video file: it has audio only (scan it as audio)");
    expect((await refusal("ntsc.mp4", "audio")).refused).toBe("not an audio file: it has a video stream (scan it as video)");
    expect((await refusal("empty.mp4", "video")).refused).toBe("empty file");
  });

  it("truncated: an MP4 whose index points past the end, one whose index is gone, a FLAC half its declared length", async () => {
    expect((await refusal("cut-faststart.mp4", "video")).refused).toBe("truncated file: its MP4 index refers to data past the end of the file");
    expect((await refusal("cut-index.mp4", "video")).refused).toBe("truncated file: its MP4 index (moov box) is missing");
    expect((await refusal("cut.flac", "audio")).refused).toMatch(/^truncated file: its audio ends at 1\.\d s of the 3\.0 s it declares$/);
  });

  it("10 000 streams, a 60000x60000 frame claim and a 30000 px wide video are refused by ffprobe's description, quickly", async () => {
    const many = await refusal("many-streams.mkv", "audio");
    expect(many.refused).toBe("the file has more than 64 streams; at most 64 are accepted");
    const huge = await refusal("huge.mkv", "video");
    expect(huge.refused).toBe("video frame size 60000x60000 is over the limit of 35389440 pixels (8192x4320)");
    const wide = await refusal("wide.mkv", "video");
    expect(wide.refused).toBe("video dimensions 30000x16 are over the limit of 8192 pixels per side");
    // Only ffprobe ran (no decode pass): bounded by its start-up, even on a loaded machine.
    for (const r of [many, huge, wide]) expect(r.ms).toBeLessThan(10_000);
  });
});

describe("the early pass: the video pass started beside ffprobe from the MP4's own index", () => {
  // What a report says must not depend on whether the pass started early: the same facts, the same images, byte for byte.
  const late = () => createFileProber({ artifacts, limits: { earlyPass: false } });
  const sameFacts = async (a: FileFacts, b: FileFacts) => {
    const images = async (f: FileFacts) => Promise.all([f.poster, f.firstFrame, f.thumbnail, f.filmStrip, f.audioWave].map(async (i) => (i ? (await artifacts.get(i.id))?.data : undefined)));
    const plain = (f: FileFacts) => JSON.stringify({ ...f, phaseMs: undefined, earlyPass: undefined, poster: undefined, firstFrame: undefined, thumbnail: undefined, filmStrip: undefined, audioWave: undefined }, (_k, v) => (typeof v === "bigint" ? String(v) : v));
    expect(plain(a)).toBe(plain(b));
    expect(await images(a)).toEqual(await images(b));
  };

  it("is kept when ffprobe's facts plan the same pass, and measures what the pass after ffprobe measures", async () => {
    for (const name of ["slate.mov", "letterbox.mp4", "ntsc.mp4"]) {
      const [early, after] = [await facts(name, "video"), await measure(name, "video", late())];
      if ("refused" in after) throw new Error(after.refused);
      expect(early.earlyPass, name).toBe("kept");
      expect(after.facts.earlyPass).toBeUndefined();
      await sameFacts(early, after.facts);
    }
    // The index's prediction, against ffprobe's facts (ntsc.mp4: 30000/1001, its index at the end of the file).
    expect(await readMp4VideoIndex(join(media, "ntsc.mp4"))).toMatchObject({ index: 0, codecName: "h264", frameRate: "30000/1001" });
    // Not an MP4 (Matroska, a variable frame rate): no early pass.
    expect(await readMp4VideoIndex(join(media, "huge.mkv"))).toBeUndefined();
    expect(await readMp4VideoIndex(join(media, "vfr.mp4"))).toBeUndefined();
  });

  it("is stopped and re-planned when the index mispredicts (a keyframe the index does not list), with the same facts", async () => {
    // Keyframes at 0, 1 and 2 s; the sync sample table then cut to its first entry. ffprobe's parser still flags the
    // IDR pictures at 1 and 2 s as keyframes, so the index predicts another poster keyframe and film strip.
    const made = join(media, "early-k3.mp4");
    await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=3", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", made);
    const bytes = await readFile(made);
    const stss = bytes.indexOf("stss", 0, "latin1");
    expect(bytes.readUInt32BE(stss + 8)).toBe(3);
    bytes.writeUInt32BE(1, stss + 8);
    await writeFile(join(media, "early-mispredicted.mp4"), bytes);
    expect((await readMp4VideoIndex(join(media, "early-mispredicted.mp4")))?.keyframes).toEqual([0]);
    const early = await facts("early-mispredicted.mp4", "video");
    const after = await measure("early-mispredicted.mp4", "video", late());
    if ("refused" in after) throw new Error(after.refused);
    expect(early.earlyPass).toBe("replanned");
    expect(early.filmStripTimesMs).toEqual([0, 1000, 2000]);
    await sameFacts(early, after.facts);
  });

  it("is stopped when ffprobe refuses the file, and leaves none of its outputs", async () => {
    const dir = await mkdtemp(join(work, "job-"));
    const user = toolUser();
    if (user) await chown(dir, user.uid, user.gid);
    expect(await readMp4VideoIndex(join(media, "cut-faststart.mp4"))).toBeDefined();
    const r = await prober.probeFile(join(media, "cut-faststart.mp4"), "video", { dir });
    expect(r).toEqual({ refused: "truncated file: its MP4 index refers to data past the end of the file" });
    expect(await readdir(dir)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });
});

describe("bounds", () => {
  it("passes cut by their time-out keep what ffprobe and the packet scan measured and list the rest", async () => {
    const slow = createFileProber({ artifacts, limits: { analysisTimeoutMs: 1 } });
    const r = await measure("slate.mov", "video", slow);
    if ("refused" in r) throw new Error(r.refused);
    const f = r.facts;
    expect(f.analysisError).toBe("media analysis timed out after 0.001 s");
    expect(f.fileInfo.video).toMatchObject({ width: 320, height: 240, frameRateMode: "constant", chromaSubsampling: "4:2:0" });
    expect(f.notMeasured).toEqual(expect.arrayContaining([
      "file_info.video.scan_type", "file_info.video.letterboxing", "file_info.content.leading_black_ms", "file_info.content.frozen_frames",
      "file_info.audio.loudness", "file_info.audio.clipping", "file_info.content.leading_silence_ms", "poster", "film_strip",
    ]));
    expect(f.fileInfo.audio!.loudness).toBeUndefined();
  });

  it("leaves nothing in its job directory's parent but what the caller made", async () => {
    expect((await readdir(work)).filter((n) => !n.startsWith("job-"))).toEqual([]);
  });
});
