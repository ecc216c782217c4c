import { chmod, chown, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { MediaInputSchema, type Image, type MediaProbe } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { corpusPath, describeWithCorpus } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMediaProber, type MediaProber } from "../src/index.ts";
import { ffmpeg, isJpeg, isPng, jpegSize, makeMedia, startFixtureServer, type FixtureServer } from "./fixtures.ts";


const policy = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);
const artifacts = createMemoryArtifactSink();
let mediaDir: string;
let workDir: string;
let server: FixtureServer;
let prober: MediaProber;

beforeAll(async () => {
  mediaDir = await mkdtemp(join(tmpdir(), "cva-media-fixtures-"));
  workDir = await mkdtemp(join(tmpdir(), "cva-media-work-"));
  // As root the decoders run as an unprivileged user, who must be able to reach the probes' directories in here.
  await chmod(workDir, 0o711);
  await makeMedia(mediaDir);
  server = await startFixtureServer(mediaDir, corpusPath("media"));
  prober = createMediaProber({ policy, artifacts, workDir, limits: { downloadTimeoutMs: 20_000 } });
});

afterAll(async () => {
  await server?.close();
  await rm(mediaDir, { recursive: true, force: true });
  await rm(workDir, { recursive: true, force: true });
});

const probe = (path: string, p: MediaProber = prober, signal?: AbortSignal) =>
  p.probe(create(MediaInputSchema, { url: `${server.base}${path}` }), signal);

/** The image is stored, is what its mime type says, and `bytes` is the stored length. */
function expectImage(img: Image | undefined, kind: "jpeg" | "png") {
  expect(img).toBeDefined();
  const stored = artifacts.get(img!.id);
  expect(stored).toBeDefined();
  expect(img!.mimeType).toBe(kind === "jpeg" ? "image/jpeg" : "image/png");
  expect(stored!.mimeType).toBe(img!.mimeType);
  expect(Number(img!.bytes)).toBe(stored!.data.length);
  expect(kind === "jpeg" ? isJpeg(stored!.data) : isPng(stored!.data)).toBe(true);
}

describe("media prober: generated media", () => {
  let fast: MediaProbe;
  beforeAll(async () => {
    fast = await probe("/faststart.mp4");
  });

  it("measures a 1280x720 H.264/AAC MP4 with moov at the beginning", () => {
    expect(fast.error).toBe("");
    expect(fast.analysisError).toBe("");
    expect(fast.notMeasured).toEqual([]);
    expect(fast.httpCode).toBe(200);
    expect(Number(fast.fileSize)).toBeGreaterThan(0);
    expect(fast.downloadSpeed).toBeGreaterThan(0);
    const c = fast.fileInfo!.container!;
    expect(c.format).toBe("mp4");
    expect(c.mimeType).toBe("video/mp4");
    expect(c.moovAtomPosition).toBe("beginning");
    expect(c.duration).toBeCloseTo(2.5, 0);
    expect(Number(c.bitRate)).toBeGreaterThan(0);
    const v = fast.fileInfo!.video!;
    expect(v.codec).toBe("h264");
    expect([v.width, v.height, v.dimensions]).toEqual([1280, 720, "1280x720"]);
    expect(v.aspectRatio).toBe("16:9");
    expect(v.definition).toBe("HD");
    expect(v.bitDepth).toBe(8);
    expect(v.pixFmt).toBe("yuv420p");
    expect(v.frameRate).toBe(25);
    expect(v.duration).toBeCloseTo(2.5, 0);
    expect(Number(v.bitRate)).toBeGreaterThan(0);
    expect(v.letterboxing).toBe(false);
    const a = fast.fileInfo!.audio!;
    expect(a.codec).toBe("aac");
    expect(a.profile).toBe("LC");
    expect(a.sampleRate).toBe(48000);
    expect(a.channels).toBe(1);
    expect(Number(a.bitRate)).toBeGreaterThan(0);
  });

  it("measures integrated loudness by EBU R128 (not the ffmpeg 5.1 silent 0)", () => {
    // Truth from theory: a 1 kHz sine of peak amplitude A has mean square A²/2; the K-weighting gain at 1 kHz is
    // +0.69 dB, cancelling BS.1770's -0.691 offset, so one channel reads 20·log10(A) - 3.01 = -23.0 LUFS for A = 0.1.
    const l = fast.fileInfo!.audio!.loudness!;
    expect(l).toBeDefined();
    expect(l.lufs).not.toBe(0);
    expect(Math.abs(l.lufs - -23.0)).toBeLessThanOrEqual(1);
    expect(l.lra).toBeGreaterThanOrEqual(0);
    expect(l.lra).toBeLessThan(2); // a steady tone has (almost) no loudness range
    // True peak of a -20 dBFS sine, allowing for AAC overshoot.
    expect(l.truePeak).toBeGreaterThan(-21.5);
    expect(l.truePeak).toBeLessThan(-18);
  });

  it("stores poster, first frame, thumbnail, film strip (JPG) and audio wave (PNG)", () => {
    expectImage(fast.poster, "jpeg");
    expectImage(fast.firstFrame, "jpeg");
    expectImage(fast.thumbnail, "jpeg");
    expectImage(fast.filmStrip, "jpeg");
    expectImage(fast.audioWave, "png");
    expect(fast.poster!.color).toMatch(/^#[0-9a-f]{6}$/);
    expect(fast.firstFrame!.color).toMatch(/^#[0-9a-f]{6}$/);
    expect(Number(fast.thumbnail!.bytes)).toBeLessThan(Number(fast.firstFrame!.bytes));
  });

  it("reports moov at the end for an MP4 without faststart", async () => {
    const p = await probe("/moov-end.mp4");
    expect(p.error).toBe("");
    expect(p.fileInfo!.container!.moovAtomPosition).toBe("end");
    expect(p.fileInfo!.video!.dimensions).toBe("1280x720");
  });

  it("detects letterboxing in a 1280x540 picture inside a 1280x720 frame; silent video has no audio", async () => {
    const p = await probe("/letterbox.mp4");
    expect(p.error).toBe("");
    expect(p.fileInfo!.video!.letterboxing).toBe(true);
    expect(p.fileInfo!.video!.dimensions).toBe("1280x720");
    expect(p.fileInfo!.audio).toBeUndefined();
    expect(p.audioWave).toBeUndefined();
    expectImage(p.filmStrip, "jpeg");
  });

  it("measures an audio-only MP3: no video, no pictures, a waveform and its loudness", async () => {
    const p = await probe("/tone.mp3");
    expect(p.error).toBe("");
    expect(p.fileInfo!.video).toBeUndefined();
    expect(p.fileInfo!.container!.format).toBe("mp3");
    expect(p.fileInfo!.container!.mimeType).toBe("audio/mpeg");
    expect(p.fileInfo!.container!.moovAtomPosition).toBe("");
    const a = p.fileInfo!.audio!;
    expect(a.codec).toBe("mp3");
    expect(a.channels).toBe(2);
    expect(a.sampleRate).toBe(44100);
    // Two channels of -23.0 LUFS each sum (in power) to -20.0 LUFS.
    expect(Math.abs(a.loudness!.lufs - -20.0)).toBeLessThanOrEqual(1);
    expect(p.poster).toBeUndefined();
    expect(p.filmStrip).toBeUndefined();
    expectImage(p.audioWave, "png");
  });

  it("takes the first visible frame, not the black one, as the first frame", async () => {
    const p = await probe("/black-intro.mp4");
    expect(p.error).toBe("");
    expectImage(p.firstFrame, "jpeg");
    expect(p.firstFrame!.color).not.toMatch(/^#[01][0-9a-f][01][0-9a-f][01][0-9a-f]$/); // not (near) black
    expect(p.fileInfo!.video!.definition).toBe("SD");
    expect(p.fileInfo!.video!.aspectRatio).toBe("4:3");
  });

  it("an all-black video still gets a screenshot and a thumbnail (the poster)", async () => {
    const p = await probe("/all-black.mp4");
    expect(p.error).toBe("");
    expectImage(p.firstFrame, "jpeg");
    expectImage(p.thumbnail, "jpeg");
    expect(p.firstFrame!.color).toBe(p.poster!.color);
    // No frame has picture content, so there is nothing to judge bars against: not measured, not "no bars".
    expect(p.notMeasured).toEqual(["file_info.video.letterboxing"]);
    expect(p.analysisError).toBe("");
  });

  it("names WebM from its EBML DocType and measures bit rates WebM does not state", async () => {
    const p = await probe("/small.webm");
    expect(p.error).toBe("");
    expect(p.fileInfo!.container!.format).toBe("webm");
    expect(p.fileInfo!.container!.mimeType).toBe("video/webm");
    expect(p.fileInfo!.video!.codec).toBe("vp9");
    expect(Number(p.fileInfo!.video!.bitRate)).toBeGreaterThan(0);
    expect(p.fileInfo!.audio!.codec).toBe("opus");
  });

  it("decodes only the keyframes, the frames up to the first visible one and the poster's keyframe", async () => {
    // 9 s at 25 fps with a keyframe every 2 s exactly (no scene-cut keyframes): 225 frames, keyframes at 0, 2, 4, 6, 8.
    const file = join(mediaDir, "gop2.mp4");
    await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=9", "-c:v", "libx264", "-preset", "ultrafast", "-g", "50",
      "-sc_threshold", "0", "-pix_fmt", "yuv420p", file);
    const { planVideoPass } = await import("../src/video-pass.ts");
    const outDir = await mkdtemp(join(mediaDir, "gop2-"));
    const plan = planVideoPass({ input: file, outDir, videoIndex: 0, duration: 9, keyframes: [0, 2, 4, 6, 8] });
    const { runTool, toolUser } = await import("../src/exec.ts");
    // As root ffmpeg runs as the tool user: it reads the file here and writes into its own directory, as in a probe.
    const user = toolUser();
    if (user) {
      await chmod(mediaDir, 0o711);
      await chown(outDir, user.uid, user.gid);
    }
    const { stderr } = await runTool("ffmpeg", plan.args.map((a) => (a === "info" ? "verbose" : a)), { timeoutMs: 30_000 });
    const decoded = [...stderr.matchAll(/Input stream #(\d):\d+ \(video\): \d+ packets read \(\d+ bytes\); (\d+) frames decoded/g)]
      .map((m) => [Number(m[1]), Number(m[2])]);
    const byInput = Object.fromEntries(decoded);
    expect(byInput[0]).toBe(5); // the keyframes
    expect(byInput[1]).toBeLessThan(10); // frame 0 is visible: a few, decoded ahead by the frame threads
    expect(byInput[2]).toBeLessThanOrEqual(5); // the keyframe at 4 s, nearest mid-duration 4.5 s (and a few read ahead)
    // The strip: one 160x120 tile per keyframe (times 0, 0.9, …, 8.1 are nearest to all five).
    const strip = await readFile(plan.outputs.filmStrip);
    expect(jpegSize(strip)).toEqual({ width: 800, height: 120 });
    expect(plan.stripTimesMs).toEqual([0, 2000, 4000, 6000, 8000]);
    // Without a keyframe index the tiles are the first frame of each tenth: no time is known ahead.
    expect(planVideoPass({ input: file, outDir, videoIndex: 0, duration: 9, keyframes: [] }).stripTimesMs).toEqual([]);
  });

  it("starts the picture passes beside ffprobe from an MP4's index: the same fields and images as after ffprobe", async () => {
    // early-pictures.ts: planned from the moov box, kept when ffprobe's facts plan the same commands.
    const logs: Array<{ phase_ms?: { early?: string } }> = [];
    const logger = { info: (o: object) => logs.push(o), warn: () => undefined };
    const run = async (earlyPictures: boolean) => {
      const p = createMediaProber({ policy, artifacts, workDir, logger, limits: { downloadTimeoutMs: 20_000, earlyPictures } });
      const r = await p.probe(create(MediaInputSchema, { url: `${server.base}/faststart.mp4`, analyzeFlashes: true }));
      return { r, early: logs.at(-1)?.phase_ms?.early };
    };
    const on = await run(true);
    const off = await run(false);
    expect(on.early).toBe("kept");
    expect(off.early).toBeUndefined();
    expect(on.r.analysisError).toBe("");
    expect(on.r.accessibility!.framesAnalyzed).toBeGreaterThan(0);
    // Every field the same (download timing aside), every image byte for byte.
    const image = (i: Image | undefined) => i && Buffer.from(artifacts.get(i.id)!.data).toString("base64");
    const fields = (m: MediaProbe) => ({
      ...m, downloadTimeMs: 0n, downloadSpeed: 0,
      poster: image(m.poster), firstFrame: image(m.firstFrame), thumbnail: image(m.thumbnail), filmStrip: image(m.filmStrip), audioWave: image(m.audioWave),
    });
    expect(fields(on.r)).toEqual(fields(off.r));
  });

  it("removes its temporary files", async () => {
    await probe("/letterbox.mp4");
    expect(await readdir(workDir)).toEqual([]);
  });
});

describe("media prober: what is not media, or not reachable", () => {
  it("404 → http_code 404 and an error", async () => {
    const p = await probe("/missing.mp4");
    expect(p.httpCode).toBe(404);
    expect(p.error).toMatch(/HTTP 404/);
    expect(p.fileInfo).toBeUndefined();
    // An error answer is an answer: its size was measured.
    expect(p.notMeasured).toEqual([]);
    expect(Number(p.fileSize)).toBe("not found".length);
  });

  it("an HLS playlist is named and not followed", async () => {
    const p = await probe("/playlist.m3u8");
    expect(p.httpCode).toBe(200);
    expect(p.error).toBe("not a media file: HLS playlist (not followed)");
    expect(server.requests).not.toContain("/segment0.ts");
  });

  it("HTML served as video/mp4 is refused", async () => {
    const p = await probe("/page.mp4");
    expect(p.httpCode).toBe(200);
    expect(p.error).toBe("not a media file: HTML document");
  });

  it("random bytes are refused after ffprobe does not recognise them", async () => {
    const { writeFile } = await import("node:fs/promises");
    const { randomBytes } = await import("node:crypto");
    const noise = randomBytes(4096);
    noise[0] = 0x00; // no accidental MPEG-audio sync at the start
    await writeFile(join(mediaDir, "noise.bin"), noise);
    const p = await probe("/noise.bin");
    expect(p.error).toMatch(/^not a media file/);
  });

  it("a server that never answers → a timeout error within the limit", async () => {
    const quick = createMediaProber({ policy, artifacts, workDir, limits: { downloadTimeoutMs: 1500 } });
    const p = await probe("/hang", quick);
    expect(p.error).toBe("media download timed out after 1.5 s");
    expect(p.httpCode).toBe(0);
    // No answer: no size or speed was measured.
    expect(p.notMeasured).toEqual(["file_size", "download_speed"]);
  });

  it("a file over maxBytes → an error, nothing analysed", async () => {
    const small = createMediaProber({ policy, artifacts, workDir, limits: { maxBytes: 10_000 } });
    const p = await probe("/faststart.mp4", small);
    expect(p.error).toMatch(/larger than the limit/);
    expect(p.fileInfo).toBeUndefined();
  });

  it("a 2 GB media file is refused by its declared size with the default limits, before any byte is stored", async () => {
    const p = await probe("/huge.mp4");
    expect(p.error).toMatch(/larger than the limit/);
    expect(p.fileInfo).toBeUndefined();
  });

  it("a media file streamed without a length is cut off at the size cap while downloading", async () => {
    const capped = createMediaProber({ policy, artifacts, workDir, limits: { maxBytes: 5_000_000 } });
    const p = await probe("/huge-chunked.mp4", capped);
    expect(p.error).toMatch(/larger than the limit/);
    expect(p.fileInfo).toBeUndefined();
  });

  it("ffmpeg running out of time → an error, never a throw", async () => {
    const slow = createMediaProber({ policy, artifacts, workDir, limits: { ffmpegTimeoutMs: 1 } });
    const p = await probe("/faststart.mp4", slow);
    expect(p.httpCode).toBe(200);
    expect(p.error).toBe("media analysis timed out after 0.001 s");
    expect(p.fileInfo).toBeUndefined();
  });

  it("passes that run out of time keep what they measured and list the rest as not measured", async () => {
    // The passes get 1 ms, ffprobe its usual time. Known truth: the stream facts come from ffprobe; loudness and
    // letterboxing need a pass that finished.
    const cut = createMediaProber({ policy, artifacts, workDir, limits: { analysisTimeoutMs: 1 } });
    const p = await probe("/faststart.mp4", cut);
    expect(p.error).toBe("");
    expect(p.analysisError).toBe("media analysis timed out after 0.001 s");
    const v = p.fileInfo!.video!;
    expect([v.dimensions, v.codec, v.frameRate]).toEqual(["1280x720", "h264", 25]);
    expect(v.duration).toBeCloseTo(2.5, 0);
    expect(p.fileInfo!.container!.moovAtomPosition).toBe("beginning");
    expect(p.fileInfo!.audio!.sampleRate).toBe(48000);
    // Not measured: never a 0 LUFS or a "no bars" that nobody measured.
    expect(p.fileInfo!.audio!.loudness).toBeUndefined();
    expect(p.notMeasured).toEqual(expect.arrayContaining(["file_info.audio.loudness", "file_info.video.letterboxing"]));
    // Whatever image a pass finished is a whole image; whatever it did not is listed.
    for (const [img, path] of [[p.poster, "poster"], [p.filmStrip, "film_strip"], [p.audioWave, "audio_wave"]] as const) {
      if (img) expectImage(img, path === "audio_wave" ? "png" : "jpeg");
      else expect(p.notMeasured).toContain(path);
    }
  });

  it("an address outside the policy is refused", async () => {
    const strict = createMediaProber({ policy: createOutboundPolicy([]), artifacts, workDir });
    const p = await probe("/faststart.mp4", strict);
    expect(p.error).toMatch(/^media download failed: refused by the outbound policy/);
  });

  it("a non-http URL is refused", async () => {
    const p = await prober.probe(create(MediaInputSchema, { url: "file:///etc/passwd" }));
    expect(p.error).toMatch(/^media download failed: .*only http and https/);
  });

  it("an abort rejects and cleans up", async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error("cancelled")), 300);
    await expect(probe("/hang", prober, ctl.signal)).rejects.toThrow("cancelled");
    expect(await readdir(workDir)).toEqual([]);
  });
});

describeWithCorpus("media prober: corpus media", "media", () => {
  it("VAST-4.0-Short-Intro.mp4: 1280x720, ~15.16 s", async () => {
    const p = await probe("/corpus/iab-vast-samples/VAST-4.0-Short-Intro.mp4");
    expect(p.error).toBe("");
    const v = p.fileInfo!.video!;
    expect(v.dimensions).toBe("1280x720");
    expect(v.definition).toBe("HD");
    expect(v.duration).toBeCloseTo(15.16, 1);
    expect(p.fileInfo!.audio!.codec).toBe("aac");
    expect(p.fileInfo!.audio!.loudness!.lufs).toBeLessThan(0);
    expectImage(p.poster, "jpeg");
    expectImage(p.filmStrip, "jpeg");
    expectImage(p.audioWave, "png");
  });

  it("video_cw.mp4: stored 28x50 with rotation -90, displayed 50x28", async () => {
    const p = await probe("/corpus/get-media-dimensions/video_cw.mp4");
    expect(p.error).toBe("");
    const v = p.fileInfo!.video!;
    expect([v.width, v.height, v.dimensions]).toEqual([50, 28, "50x28"]);
    expect(Math.abs(v.rotation)).toBe(90);
    expect(v.letterboxing).toBe(false);
  });

  it("sound2.webm: WebM with Vorbis only is audio", async () => {
    const p = await probe("/corpus/howler.js/sound2.webm");
    expect(p.error).toBe("");
    expect(p.fileInfo!.video).toBeUndefined();
    expect(p.fileInfo!.audio!.codec).toBe("vorbis");
    expect(p.fileInfo!.container!.format).toBe("webm");
    expect(p.fileInfo!.container!.mimeType).toBe("audio/webm");
    expect(p.fileInfo!.container!.duration).toBeCloseTo(21.17, 1);
    expect(Number(p.fileInfo!.audio!.bitRate)).toBeGreaterThan(0);
    expectImage(p.audioWave, "png");
  });
});
