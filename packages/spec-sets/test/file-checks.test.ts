import { create } from "@bufbuild/protobuf";
import {
  AudioFileReportSchema, ImageFileReportSchema, TestOutcome, VideoFileReportSchema,
  type AudioFileReport, type ImageFileReport, type TestResult, type VideoFileReport,
} from "@cva/contracts";
import { describe, expect, it } from "vitest";
import { evaluateAudioFile, evaluateImageFile, evaluateVideoFile, getSpecSet } from "../src/index.ts";

// The raw-file tests (scanVideo, scanImage, scanAudio) against spec sets 0 (ATSC A/85) and 2 (EBU R128): for each,
// a passing figure, a failing one and the edge (a bound is included), and what is not measured or does not apply.

function video(over: (r: VideoFileReport) => void = () => {}): VideoFileReport {
  const r = create(VideoFileReportSchema, {
    durationMs: 30_030n,
    fileInfo: {
      container: { format: "mp4", moovAtomPosition: "beginning", duration: 30.03 },
      video: { width: 1920, height: 1080, frameRate: 29.97, frameRateFraction: "30000/1001", frameRateMode: "constant", scanType: "progressive", bitRate: 8_000_000n },
      audio: { codec: "aac", sampleRate: 48_000, channels: 2, loudness: { lufs: -24, lra: 5, truePeak: -3 } },
      content: { leadingBlackMs: 0n, trailingBlackMs: 0n, leadingSilenceMs: 0n, trailingSilenceMs: 100n, frozenFramesMs: 0n },
    },
  });
  over(r);
  return r;
}
function audio(over: (r: AudioFileReport) => void = () => {}): AudioFileReport {
  const r = create(AudioFileReportSchema, {
    durationMs: 30_000n,
    fileInfo: {
      container: { format: "mp3" },
      audio: { codec: "mp3", sampleRate: 44_100, channels: 2, clipping: 0n, loudness: { lufs: -23, lra: 3, truePeak: -2.5 } },
      content: { leadingSilenceMs: 0n, trailingSilenceMs: 0n },
    },
  });
  over(r);
  return r;
}
function image(over: (r: ImageFileReport) => void = () => {}): ImageFileReport {
  const r = create(ImageFileReportSchema, { format: "png", fileSize: 40_000n, width: 300, height: 250, iabSize: "300x250", animated: false, frameCount: 1, loopCount: 1 });
  over(r);
  return r;
}

const byId = (tests: TestResult[]) => Object.fromEntries(tests.map((t) => [t.test, t]));
const result = (t: TestResult | undefined) => (t ? (t.result === TestOutcome.PASSED ? "passed" : t.result === TestOutcome.FAILED ? "failed" : "error") : "absent");
const v = (specId: number, over?: (r: VideoFileReport) => void) => byId(evaluateVideoFile(video(over), specId).tests);
const a = (specId: number, over?: (r: AudioFileReport) => void) => byId(evaluateAudioFile(audio(over), specId).tests);
const i = (specId: number, over?: (r: ImageFileReport) => void) => byId(evaluateImageFile(image(over), specId).tests);

describe("video file tests", () => {
  it("a clean 30 s 1080p29.97 spot passes every test of set 0", () => {
    const s = evaluateVideoFile(video(), 0);
    expect(s.tests.map((t) => t.test).sort()).toEqual([
      "constant_frame_rate", "ctv_bit_rate", "ctv_resolution", "duration", "faststart", "frame_rate", "leading_black", "leading_silence",
      "letterboxing", "loudness", "pillarboxing", "progressive", "sample_rate", "trailing_black", "trailing_silence", "true_peak",
    ]);
    expect(s.tests.filter((t) => t.result !== TestOutcome.PASSED).map((t) => `${t.test}: ${t.message}`)).toEqual([]);
    expect(s.passed).toBe(16);
  });

  it("duration: 6, 15, 30 s within 0.5 s; 29.5 s is the edge; 20 s and 31 s fail", () => {
    expect(result(v(0, (r) => (r.durationMs = 6_000n)).duration)).toBe("passed");
    expect(result(v(0, (r) => (r.durationMs = 15_020n)).duration)).toBe("passed");
    expect(result(v(0, (r) => (r.durationMs = 29_500n)).duration)).toBe("passed");
    expect(result(v(0, (r) => (r.durationMs = 31_000n)).duration)).toBe("failed");
    const twenty = v(0, (r) => (r.durationMs = 20_000n)).duration!;
    expect(twenty.message).toMatch(/20 s is not within 0\.5 s of 6, 15, 30 s \(nearest 15 s\)/);
  });

  it("loudness: ATSC A/85 window [-26, -22] in set 0, EBU R128 [-23.5, -22.5] in set 2", () => {
    const at = (lufs: number, set: number) => result(v(set, (r) => (r.fileInfo!.audio!.loudness!.lufs = lufs)).loudness);
    expect([at(-24, 0), at(-26, 0), at(-22, 0), at(-26.1, 0), at(-10, 0)]).toEqual(["passed", "passed", "passed", "failed", "failed"]);
    expect([at(-23, 2), at(-23.5, 2), at(-22.5, 2), at(-24, 2), at(-10, 2)]).toEqual(["passed", "passed", "passed", "failed", "failed"]);
    expect(v(2).loudness!.expectedText).toBe("between -23.5 and -22.5 LUFS (EBU R128: -23 LUFS ±0.5)");
  });

  it("true peak: at most -2 dBTP (ATSC) in set 0, -1 dBTP (EBU) in set 2", () => {
    const at = (tp: number, set: number) => result(v(set, (r) => (r.fileInfo!.audio!.loudness!.truePeak = tp)).true_peak);
    expect([at(-3, 0), at(-2, 0), at(-1.5, 0)]).toEqual(["passed", "passed", "failed"]);
    expect([at(-1.5, 2), at(-1, 2), at(-0.2, 2)]).toEqual(["passed", "passed", "failed"]);
  });

  it("loudness and true peak not measured → error with the prober's reason; a silent video → the audio tests do not apply", () => {
    const t = v(0, (r) => {
      r.notMeasured = ["file_info.audio.loudness"];
      r.analysisError = "audio analysis stopped: the scan's deadline was reached";
    });
    expect(result(t.loudness)).toBe("error");
    expect(t.true_peak!.message).toBe("test could not be evaluated: the true peak was not measured: audio analysis stopped: the scan's deadline was reached");
    const silent = v(0, (r) => {
      r.fileInfo!.audio = undefined;
      r.notMeasured = ["file_info.content.leading_silence_ms", "file_info.content.trailing_silence_ms"];
    });
    for (const id of ["loudness", "true_peak", "sample_rate", "leading_silence", "trailing_silence"]) expect(result(silent[id])).toBe("absent");
    expect(result(silent.duration)).toBe("passed");
  });

  it("sample rate 48 kHz; 44.1 kHz fails", () => {
    expect(result(v(0, (r) => (r.fileInfo!.audio!.sampleRate = 44_100)).sample_rate)).toBe("failed");
  });

  it("frame rate between 23.976 and 30 fps: 23.976 and 30 pass, 50 and 15 fail; variable frame rate fails", () => {
    const at = (fps: number) => result(v(0, (r) => (r.fileInfo!.video!.frameRate = fps)).frame_rate);
    expect([at(23.976), at(25), at(30), at(50), at(15)]).toEqual(["passed", "passed", "passed", "failed", "failed"]);
    expect(result(v(0, (r) => (r.fileInfo!.video!.frameRateMode = "variable")).constant_frame_rate)).toBe("failed");
  });

  it("progressive: interlaced frames fail, saying so; scan type not measured → error", () => {
    const t = v(0, (r) => (r.fileInfo!.video!.scanType = "interlaced")).progressive!;
    expect(result(t)).toBe("failed");
    expect(t.message).toMatch(/the frames are interlaced/);
    expect(result(v(0, (r) => (r.notMeasured = ["file_info.video.scan_type"])).progressive)).toBe("error");
  });

  it("CTV resolution ≥ 1080 lines (1920x800 scope is 1080, 1280x720 fails); bit rate ≥ 1500 kbps (1499 fails)", () => {
    const res = (w: number, h: number) => v(0, (r) => Object.assign(r.fileInfo!.video!, { width: w, height: h })).ctv_resolution!;
    expect([result(res(1920, 1080)), result(res(1920, 800)), result(res(1280, 720)), result(res(3840, 2160))]).toEqual(["passed", "passed", "failed", "passed"]);
    expect(res(1280, 720).actual).toBe(720);
    const rate = (bps: bigint) => result(v(0, (r) => (r.fileInfo!.video!.bitRate = bps)).ctv_bit_rate);
    expect([rate(1_500_000n), rate(1_499_000n)]).toEqual(["passed", "failed"]);
  });

  it("faststart: moov at the end fails; a WebM (no moov) → not applicable", () => {
    expect(result(v(0, (r) => (r.fileInfo!.container!.moovAtomPosition = "end")).faststart)).toBe("failed");
    expect(result(v(0, (r) => Object.assign(r.fileInfo!.container!, { format: "webm", moovAtomPosition: "" })).faststart)).toBe("absent");
  });

  it("letterboxing and pillarboxing fail with the bars' sizes", () => {
    const lb = v(0, (r) => Object.assign(r.fileInfo!.video!, { letterboxing: true, bars: { top: 140, bottom: 140, left: 0, right: 0 } })).letterboxing!;
    expect(result(lb)).toBe("failed");
    expect(lb.message).toMatch(/140 px top, 140 px bottom/);
    expect(result(v(0, (r) => (r.fileInfo!.video!.pillarboxing = true)).pillarboxing)).toBe("failed");
  });

  it("a black slate or dead air at the ends: ≤ 500 ms passes, 1 s fails", () => {
    const black = (ms: bigint) => result(v(0, (r) => (r.fileInfo!.content!.leadingBlackMs = ms)).leading_black);
    expect([black(500n), black(1_000n)]).toEqual(["passed", "failed"]);
    expect(result(v(0, (r) => (r.fileInfo!.content!.trailingBlackMs = 2_000n)).trailing_black)).toBe("failed");
    expect(result(v(0, (r) => (r.fileInfo!.content!.leadingSilenceMs = 1_000n)).leading_silence)).toBe("failed");
    expect(result(v(0, (r) => (r.fileInfo!.content!.trailingSilenceMs = 501n)).trailing_silence)).toBe("failed");
  });
});

describe("audio file tests", () => {
  it("a clean spot at -23 LUFS passes sets 0 and 2", () => {
    for (const set of [0, 2]) {
      const s = evaluateAudioFile(audio(), set);
      expect(s.tests.map((t) => t.test).sort()).toEqual(["clipping", "leading_silence", "loudness", "sample_rate", "trailing_silence", "true_peak"]);
      expect(s.failed).toBe(0);
    }
  });

  it("a -10 LUFS tone fails loudness in both sets; -24 passes ATSC and fails EBU", () => {
    const at = (lufs: number, set: number) => result(a(set, (r) => (r.fileInfo!.audio!.loudness!.lufs = lufs)).loudness);
    expect([at(-10, 0), at(-10, 2), at(-24, 0), at(-24, 2)]).toEqual(["failed", "failed", "passed", "failed"]);
  });

  it("clipping: 0 passes, 1 clipped sample fails with the count; not measured → error", () => {
    const one = a(0, (r) => (r.fileInfo!.audio!.clipping = 1n)).clipping!;
    expect(result(one)).toBe("failed");
    expect(one.message).toMatch(/1 sample at full scale/);
    expect(result(a(0, (r) => (r.notMeasured = ["file_info.audio.clipping"])).clipping)).toBe("error");
  });

  it("sample rate: 44.1 and 48 kHz pass, 22.05 kHz fails; 1 s of leading silence fails", () => {
    const at = (hz: number) => result(a(0, (r) => (r.fileInfo!.audio!.sampleRate = hz)).sample_rate);
    expect([at(44_100), at(48_000), at(22_050)]).toEqual(["passed", "passed", "failed"]);
    expect(result(a(0, (r) => (r.fileInfo!.content!.leadingSilenceMs = 1_000n)).leading_silence)).toBe("failed");
  });
});

describe("image file tests", () => {
  it("a 40 KB 300x250 still: weight (≤ 150 KB) and size pass; the animation tests do not apply", () => {
    const t = i(0);
    expect(Object.keys(t).sort()).toEqual(["iab_size", "image_weight"]);
    expect(t.image_weight).toMatchObject({ actual: 40, result: TestOutcome.PASSED, expectedText: "at most 150 KB for 300x250" });
  });

  it("weight: 150 KB is the edge for 300x250, 150.001 KB fails; a size without a figure → left out", () => {
    expect(result(i(0, (r) => (r.fileSize = 150_000n)).image_weight)).toBe("passed");
    expect(result(i(0, (r) => (r.fileSize = 150_010n)).image_weight)).toBe("failed");
    const odd = i(0, (r) => Object.assign(r, { width: 640, height: 480, iabSize: "" }));
    expect(result(odd.image_weight)).toBe("absent");
    expect(odd.iab_size!.message).toMatch(/640x480 is not an IAB fixed size/);
    expect(result(odd.iab_size)).toBe("failed");
  });

  it("animation: 15 s every loop included is the edge; 15.1 s fails; forever fails with why", () => {
    const anim = (ms: bigint, loops: number) => i(0, (r) => Object.assign(r, { animated: true, frameCount: 3, loopCount: loops, animationDurationMs: ms }));
    expect(result(anim(15_000n, 3).animation_length)).toBe("passed");
    expect(result(anim(15_100n, 3).animation_length)).toBe("failed");
    const forever = anim(-1n, 0);
    expect(result(forever.animation_length)).toBe("failed");
    expect(forever.animation_length!.actual).toBe(-1);
    expect(forever.animation_length!.message).toMatch(/loops forever/);
    expect(result(forever.animation_loops)).toBe("failed");
  });

  it("loops: 3 plays pass, 4 fail; an AVIF sequence whose timing is not measured → error", () => {
    const loops = (n: number) => result(i(0, (r) => Object.assign(r, { animated: true, loopCount: n, animationDurationMs: 3000n })).animation_loops);
    expect([loops(1), loops(3), loops(4)]).toEqual(["passed", "passed", "failed"]);
    const avif = i(0, (r) => Object.assign(r, { animated: true, notMeasured: ["frame_count", "loop_count", "animation_duration_ms"] }));
    expect([result(avif.animation_length), result(avif.animation_loops)]).toEqual(["error", "error"]);
  });
});

describe("spec set 2 (EBU R128) is set 0 but for loudness", () => {
  it("every other rule is set 0's, unchanged", () => {
    const s0 = getSpecSet(0).rules;
    const s2 = getSpecSet(2).rules;
    expect(s2.length).toBe(s0.length);
    const changed = s2.filter((r, k) => r !== s0[k]).map((r) => `${r.scope}/${r.test}`).sort();
    expect(changed).toEqual(["audio_file/loudness", "audio_file/true_peak", "vast_mediafile/loudness", "video_file/loudness", "video_file/true_peak"]);
  });
});
