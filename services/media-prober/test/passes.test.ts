import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeFailures, failureOf, planAnalysis, runAnalysis } from "../src/analysis-pass.ts";
import { ToolError, type ToolOptions } from "../src/exec.ts";
import { parseCropdetect } from "../src/letterbox.ts";
import { pickStripKeyframes } from "../src/video-pass.ts";

describe("film strip keyframes", () => {
  it("the keyframe nearest to each of the n times, each once", () => {
    // 2 s GOPs over 9 s: times 0, 0.9, …, 8.1 fall nearest to every keyframe.
    expect(pickStripKeyframes([0, 2, 4, 6, 8], 9, 10)).toEqual([0, 2, 4, 6, 8]);
    // x264's default 10 s GOP on a 15 s file: two keyframes, two tiles — never a repeated tile.
    expect(pickStripKeyframes([0, 10], 15, 10)).toEqual([0, 10]);
    // All-intra 25 fps: exactly the n sampling times.
    const every = Array.from({ length: 250 }, (_, i) => i / 25);
    expect(pickStripKeyframes(every, 10, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("without a duration the first n keyframes; without keyframes nothing", () => {
    expect(pickStripKeyframes([3, 1, 2, 2], 0, 2)).toEqual([1, 2]);
    expect(pickStripKeyframes([], 15, 10)).toEqual([]);
  });
});

describe("cropdetect log", () => {
  it("counts a frame judged by two cropdetect instances once, by its time", () => {
    const line = (n: number, y1: number, t: string) =>
      `[Parsed_cropdetect_${n} @ 0x55] x1:0 x2:1279 y1:${y1} y2:629 w:1280 h:540 x:0 y:90 pts:0 t:${t} crop=1280:540:0:90\n`;
    const log = line(2, 90, "0.000000") + line(2, 90, "10.000000") + line(9, 90, "0.000000") + line(11, 0, "7.500000");
    expect(parseCropdetect(log)).toEqual([
      { x1: 0, x2: 1279, y1: 90, y2: 629 },
      { x1: 0, x2: 1279, y1: 90, y2: 629 },
      { x1: 0, x2: 1279, y1: 0, y2: 629 },
    ]);
  });
});

describe("pass plans", () => {
  const plan = planAnalysis({
    input: "/tmp/x/media", outDir: "/tmp/x", audio: { index: 1 }, video: { videoIndex: 0, duration: 15, keyframes: [0, 10] },
  });

  it("every input of every pass is the local file behind the protocol and format whitelists", () => {
    for (const args of [plan.audio!.args, plan.video!.args]) {
      const inputs = args.flatMap((a, i) => (a === "-i" ? [i] : []));
      expect(inputs.length).toBeGreaterThan(0);
      let from = 0;
      for (const at of inputs) {
        expect(args[at + 1]).toBe("/tmp/x/media");
        const opts = args.slice(from, at);
        expect(opts.join(" ")).toContain("-protocol_whitelist file -format_whitelist ");
        from = at + 1;
      }
    }
  });

  it("the audio pass decodes no video; the video pass seeks to the keyframe nearest mid-duration for the poster", () => {
    const a = plan.audio!.args;
    expect(a.slice(0, a.indexOf("-i"))).toEqual(expect.arrayContaining(["-vn"]));
    const v = plan.video!.args;
    // Keyframes at 0 and 10 s: 10 s is nearest the middle (7.5 s); just past it, so the backward search lands on it.
    expect(v.join(" ")).toContain("-noaccurate_seek -ss 10.000500 -t 11 -an -sn -dn -i /tmp/x/media");
    expect(v.join(" ")).toContain("-skip_frame nokey");
    expect(v[v.indexOf("-filter_complex") + 1]).toContain("tile=2x1");
  });
});

describe("running the passes", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cva-passes-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(13),
    Buffer.from([0, 0, 0, 0]), Buffer.from("IEND", "latin1"), Buffer.from([0xae, 0x42, 0x60, 0x82]),
  ]);
  const summary = "[Parsed_ebur128_1 @ 0x1] Summary:\n\n  Integrated loudness:\n    I:         -23.0 LUFS\n    Threshold: -33.0 LUFS\n\n" +
    "  Loudness range:\n    LRA:         0.0 LU\n\n  True peak:\n    Peak:        -20.0 dBFS\n";
  const opts: ToolOptions = { timeoutMs: 2000 };

  it("a video pass that fails costs the letterboxing, not the loudness", async () => {
    const plan = planAnalysis({ input: join(dir, "media"), outDir: dir, audio: { index: 1 }, video: { videoIndex: 0, duration: 4, keyframes: [0] } });
    const out = await runAnalysis(plan, opts, async (_tool, args) => {
      if (args.includes("-vn")) {
        await writeFile(join(dir, "wave.png"), png);
        return { stdout: "", stderr: summary };
      }
      throw new ToolError("ffmpeg exited with 1", "ffmpeg", "exit", "Invalid data found when processing input");
    });
    expect(out.result.loudness).toEqual({ lufs: -23, lra: 0, truePeak: -20 });
    expect(out.result.audioWave).toEqual(png);
    expect(out.result.poster).toBeUndefined();
    expect(out.result.cropFrames).toEqual([]);
    expect(out).toMatchObject({ failure: "video could not be decoded", audioFailed: false, videoFailed: true });
  });

  it("both passes out of time → one media-wide reason; an abort rejects", async () => {
    const plan = planAnalysis({ input: join(dir, "media"), outDir: join(dir, "none"), audio: { index: 1 }, video: { videoIndex: 0, duration: 4, keyframes: [] } });
    const out = await runAnalysis(plan, opts, async () => {
      throw new ToolError("ffmpeg timed out", "ffmpeg", "timeout", "");
    });
    expect(out).toMatchObject({ failure: "media analysis timed out after 2 s", audioFailed: true, videoFailed: true });
    expect(out.result.loudness).toBeUndefined();
    const ctl = new AbortController();
    ctl.abort(new Error("cancelled"));
    await expect(runAnalysis(plan, { ...opts, signal: ctl.signal }, async () => {
      throw new Error("killed");
    })).rejects.toThrow("cancelled");
  });

  it("names each pass when they fail differently", () => {
    expect(describeFailures("timeout", undefined, 60_000)).toBe("audio analysis timed out after 60 s");
    expect(describeFailures("decode", "timeout", 1500)).toBe("audio could not be decoded; video analysis timed out after 1.5 s");
    expect(describeFailures("decode", "decode", 1500)).toBe("media could not be decoded");
    expect(describeFailures(undefined, undefined, 1500)).toBeUndefined();
  });

  it("names OS limits, refused frames and codecs, and a deadline cut (rather than the pass time-out)", () => {
    expect(describeFailures("cpu", "memory", 1500)).toBe("audio analysis stopped at its CPU time limit; video analysis stopped at its memory limit");
    expect(describeFailures(undefined, "frame_size", 1500)).toBe("video frames are larger than 35389440 pixels (8192x4320); not decoded");
    expect(describeFailures("codec", undefined, 1500)).toBe("audio codec is not one the prober decodes");
    expect(describeFailures("timeout", "timeout", 700, true)).toBe("media analysis stopped: the scan's deadline was reached");
    expect(failureOf(new ToolError("x", "ffmpeg", "exit", "[vp8 @ 0x1] [IMGUTILS @ 0x2] Picture size 16000x16000 exceeds specified max pixel count 35389440"))).toBe("frame_size");
    expect(failureOf(new ToolError("x", "ffmpeg", "exit", "[ffv1 @ 0x1] Codec (ffv1) not on whitelist 'h264'"))).toBe("codec");
    expect(failureOf(new ToolError("x", "ffmpeg", "limit", "", "cpu"))).toBe("cpu");
    expect(failureOf(new ToolError("x", "ffmpeg", "timeout", ""))).toBe("timeout");
    expect(failureOf(new Error("bug"))).toBe("decode");
  });
});
