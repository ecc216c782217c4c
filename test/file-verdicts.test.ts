import { execFile } from "node:child_process";
import { chmod, chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { create } from "@bufbuild/protobuf";
import { AudioFileReportSchema, ImageFileReportSchema, TestOutcome, VideoFileReportSchema, type ScanResults } from "@cva/contracts";
import { createMemoryArtifactSink } from "@cva/platform";
import { evaluateAudioFile, evaluateImageFile, evaluateVideoFile } from "@cva/spec-sets";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolUser } from "../services/media-prober/src/exec.ts";
import { createFileProber, type FileKind, type FileProber } from "../services/media-prober/src/file-prober.ts";
import { createImageAnalyzer, type ImageAnalyzer } from "../services/media-prober/src/image/index.ts";

// The raw-file guideline tests on real measurements (issue 19 §5, §6): files made here with ffmpeg and sharp, each to
// be something, measured by the media prober as shipped (file-prober.ts, the image analyzer), then judged by spec set
// 0 (ATSC A/85) and spec set 2 (EBU R128). The truth of each file is its verdicts, written beside it.

const run = promisify(execFile);
const ffmpeg = (...args: string[]) => run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args], { timeout: 120_000 });
/** A 1 kHz sine of peak amplitude A on two channels reads 20·log10(A) LUFS (services/media-prober/test/file-fixtures.ts). */
const tone = (lufs: number, seconds: number) => {
  const a = 10 ** (lufs / 20);
  return `aevalsrc=${a}*sin(2*PI*1000*t)|${a}*sin(2*PI*1000*t):s=48000:d=${seconds}`;
};

let media: string;
let work: string;
let prober: FileProber;
let images: ImageAnalyzer;
const artifacts = createMemoryArtifactSink();

beforeAll(async () => {
  media = await mkdtemp(join(tmpdir(), "cva-verdict-media-"));
  work = await mkdtemp(join(tmpdir(), "cva-verdict-work-"));
  // As root the decoders run as an unprivileged user, who must reach the files and the job folders.
  await chmod(media, 0o711);
  await chmod(work, 0o711);
  const at = (n: string) => join(media, n);
  const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];
  await Promise.all([
    // A clean CTV spot: 6 s of 1920x1080 at 25 fps, 3 Mbps, faststart, a -24 LUFS tone from the first sample to the last.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=25:d=6", "-f", "lavfi", "-i", tone(-24, 6), ...x264, "-b:v", "3M",
      "-c:a", "aac", "-b:a", "192k", "-movflags", "+faststart", "-shortest", at("clean.mp4")),
    // A broadcast master's leader: 1 s black slate and 1 s of silence, then 2 s of picture and tone; 320x240, moov at the end.
    ffmpeg("-f", "lavfi", "-i", "color=black:s=320x240:r=25:d=1", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=2",
      "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo:d=1", "-f", "lavfi", "-i", tone(-24, 2),
      "-filter_complex", "[0][1]concat=n=2:v=1:a=0[v];[2][3]concat=n=2:v=0:a=1[a]", "-map", "[v]", "-map", "[a]",
      ...x264, "-c:a", "pcm_s16le", at("slate.mov")),
    // Woven fields coded as interlaced; a 16:9 picture letterboxed in a 4:3 frame.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=352x288:r=50:d=2", "-vf", "tinterlace=mode=interleave_top,setfield=tff",
      ...x264, "-flags", "+ildct+ilme", "-x264-params", "tff=1", at("interlaced.mp4")),
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=2", "-vf", "pad=320:240:0:30:black", ...x264, at("letterbox.mp4")),
    // Audio: a -23 LUFS tone (10 s: the loudness range needs its 3 s windows filled), a -10 LUFS one, a clipped one.
    ffmpeg("-f", "lavfi", "-i", tone(-23, 10), "-c:a", "pcm_s24le", at("tone-23.wav")),
    ffmpeg("-f", "lavfi", "-i", tone(-10, 3), "-c:a", "flac", at("tone-10.flac")),
    ffmpeg("-f", "lavfi", "-i", "aevalsrc=2*sin(2*PI*1000*t)|0.5*sin(2*PI*1000*t):s=48000:d=2", "-c:a", "pcm_s16le", at("clipped.wav")),
    // Spec set 3: full-frame white/black at 4 Hz for 3 s (a seizure risk), with an English mov_text caption track.
    writeFile(at("captions.srt"), "1\n00:00:00,000 --> 00:00:02,000\nCaptioned\n\n").then(() =>
      ffmpeg("-f", "lavfi", "-i", "color=c=black:s=40x30:r=30:d=3,format=rgb24,geq=r='if(lt(mod(T*4,1),0.5),255,0)':g='if(lt(mod(T*4,1),0.5),255,0)':b='if(lt(mod(T*4,1),0.5),255,0)',scale=320:240:flags=neighbor",
        "-i", at("captions.srt"), ...x264, "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", at("flash-captioned.mp4"))),
  ]);
  prober = createFileProber({ artifacts });
  images = createImageAnalyzer({ artifacts });
  await images.warmUp();
}, 300_000);

afterAll(async () => {
  await images?.close();
  if (media) await rm(media, { recursive: true, force: true });
  if (work) await rm(work, { recursive: true, force: true });
});

async function facts(name: string, kind: FileKind) {
  const dir = await mkdtemp(join(work, "job-"));
  const user = toolUser();
  if (user) await chown(dir, user.uid, user.gid);
  try {
    const r = await prober.probeFile(join(media, name), kind, { dir });
    if ("refused" in r) throw new Error(`${name} refused: ${r.refused}`);
    return r.facts;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
// The report fields the tests read, as file-job.ts builds them from the prober's facts.
const videoReport = async (name: string) => {
  const f = await facts(name, "video");
  return create(VideoFileReportSchema, {
    fileInfo: f.fileInfo, durationMs: BigInt(f.durationMs), notMeasured: f.notMeasured, analysisError: f.analysisError, accessibility: f.accessibility,
  });
};
const audioReport = async (name: string) => {
  const f = await facts(name, "audio");
  return create(AudioFileReportSchema, { fileInfo: f.fileInfo, durationMs: BigInt(f.durationMs), notMeasured: f.notMeasured, analysisError: f.analysisError });
};
const imageReport = async (bytes: Buffer) => create(ImageFileReportSchema, { ...(await images.analyze(bytes)) });

/** test id → passed / failed / error. */
const verdicts = (s: ScanResults) =>
  Object.fromEntries(s.tests.map((t) => [t.test, t.result === TestOutcome.PASSED ? "passed" : t.result === TestOutcome.FAILED ? "failed" : `error: ${t.message}`]));
const failing = (s: ScanResults) => s.tests.filter((t) => t.result !== TestOutcome.PASSED).map((t) => t.test).sort();

describe("video files judged by spec set 3 (WCAG 2.2)", () => {
  it("a 4 Hz full-frame flash with a caption track: photosensitivity fails (4 a second), captions pass (1 track)", async () => {
    const s = evaluateVideoFile(await videoReport("flash-captioned.mp4"), 3);
    expect(verdicts(s)).toEqual({ photosensitivity: "failed", captions: "passed" });
    expect(s.tests.find((t) => t.test === "photosensitivity")!.actual).toBe(4);
    expect(s.tests.find((t) => t.test === "captions")!.actual).toBe(1);
  });

  it("the clean spot (moving test pattern, no caption track): photosensitivity passes, captions fail", async () => {
    const s = evaluateVideoFile(await videoReport("clean.mp4"), 3);
    expect(verdicts(s)).toEqual({ photosensitivity: "passed", captions: "failed" });
  });
});

describe("video files judged by their measurements", () => {
  it("a clean 6 s 1080p25 spot at -24 LUFS passes all 16 tests of set 0; set 2 (EBU R128, -23 ±0.5) fails its loudness only", async () => {
    const r = await videoReport("clean.mp4");
    const us = evaluateVideoFile(r, 0);
    expect(failing(us), JSON.stringify(us.tests.filter((t) => t.result !== TestOutcome.PASSED).map((t) => t.message))).toEqual([]);
    expect(us.passed).toBe(16);
    const eu = evaluateVideoFile(r, 2);
    expect(failing(eu)).toEqual(["loudness"]);
    const lufs = eu.tests.find((t) => t.test === "loudness")!.actual;
    expect(Math.abs(lufs + 24)).toBeLessThanOrEqual(0.5);
  });

  it("1 s black slate and 1 s of silence in a 3 s 320x240 MOV: slate, silence, spot length, CTV resolution and faststart fail", async () => {
    const v = verdicts(evaluateVideoFile(await videoReport("slate.mov"), 0));
    expect(v).toMatchObject({
      leading_black: "failed", leading_silence: "failed", duration: "failed", ctv_resolution: "failed",
      trailing_black: "passed", trailing_silence: "passed", progressive: "passed", letterboxing: "passed", pillarboxing: "passed",
      loudness: "passed", true_peak: "passed", sample_rate: "passed",
    });
    // MOV from ffmpeg without +faststart: the moov is at the end.
    expect(v.faststart).toBe("failed");
  });

  it("interlaced fields fail progressive; bars top and bottom fail letterboxing (and nothing else of the picture)", async () => {
    const i = verdicts(evaluateVideoFile(await videoReport("interlaced.mp4"), 0));
    expect(i.progressive).toBe("failed");
    const l = verdicts(evaluateVideoFile(await videoReport("letterbox.mp4"), 0));
    expect([l.letterboxing, l.pillarboxing, l.progressive]).toEqual(["failed", "passed", "passed"]);
    // Silent videos: their audio tests do not apply.
    expect(l.loudness).toBeUndefined();
  });
});

describe("audio files judged by their measurements", () => {
  it("a -23 LUFS tone passes both sets; a -10 LUFS tone fails loudness in both (its true peak, -10 dBTP, is under both ceilings)", async () => {
    const quiet = await audioReport("tone-23.wav");
    expect(failing(evaluateAudioFile(quiet, 0))).toEqual([]);
    expect(failing(evaluateAudioFile(quiet, 2))).toEqual([]);
    const loud = await audioReport("tone-10.flac");
    for (const set of [0, 2]) expect(failing(evaluateAudioFile(loud, set))).toEqual(["loudness"]);
  });

  it("a clipped tone fails clipping with its 68 000 samples counted", async () => {
    const s = evaluateAudioFile(await audioReport("clipped.wav"), 0);
    const clip = s.tests.find((t) => t.test === "clipping")!;
    expect(clip.result).toBe(TestOutcome.FAILED);
    expect(clip.actual).toBe(68_000);
  });
});

describe("image files judged by their measurements", () => {
  const frames = () => Promise.all(["#ff0000", "#00ff00", "#0000ff"].map((c) => sharp({ create: { width: 300, height: 250, channels: 3, background: c } }).png().toBuffer()));

  it("a small 300x250 PNG passes weight and size; 300x250 of noise (over 150 KB) fails its weight", async () => {
    const small = await sharp({ create: { width: 300, height: 250, channels: 3, background: "#f4f4f4" } }).png().toBuffer();
    expect(verdicts(evaluateImageFile(await imageReport(small), 0))).toEqual({ image_weight: "passed", iab_size: "passed" });
    const noise = await sharp(Buffer.from(Array.from({ length: 300 * 250 * 3 }, (_, k) => (k * 2654435761) >>> 24)), { raw: { width: 300, height: 250, channels: 3 } })
      .png({ compressionLevel: 0 }).toBuffer();
    expect(noise.length).toBeGreaterThan(150_000);
    expect(verdicts(evaluateImageFile(await imageReport(noise), 0)).image_weight).toBe("failed");
  });

  it("animated GIF 3 × 400 ms: 3 plays (3.6 s) pass, 4 plays fail the loop limit, forever fails both", async () => {
    const gif = async (loop: number) => imageReport(await sharp(await frames(), { join: { animated: true } }).gif({ loop, delay: [400, 400, 400] }).toBuffer());
    expect(verdicts(evaluateImageFile(await gif(3), 0))).toMatchObject({ animation_length: "passed", animation_loops: "passed" });
    expect(verdicts(evaluateImageFile(await gif(4), 0))).toMatchObject({ animation_length: "passed", animation_loops: "failed" });
    const forever = evaluateImageFile(await gif(0), 0);
    expect(verdicts(forever)).toMatchObject({ animation_length: "failed", animation_loops: "failed" });
    expect(forever.tests.find((t) => t.test === "animation_length")!.message).toMatch(/loops forever/);
  });
});
