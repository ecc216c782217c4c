import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dominantColour } from "../src/colour.ts";
import { runTool, toolUser } from "../src/exec.ts";
import { planFileVideoPass, readFileVideoPass } from "../src/file-video-pass.ts";
import { planVideoPass, posterKeyframe, readVideoPass } from "../src/video-pass.ts";
import { ffmpeg } from "./fixtures.ts";

// The poster (issue 22 §3): the keyframe nearest mid-duration, or, when that keyframe is black, the first frame after
// it that is not; the same rule in the VAST media pass (which seeks to the keyframe and decodes from there) and in
// the raw file's pass (which decodes every frame). Known truth: solid colours, each segment starting on a forced
// keyframe, so which frame became the poster reads from its colour.

let dir: string;
const user = toolUser();

/** Solid-colour segments [colour, seconds], 320x240 at 25 fps, a keyframe at the start of each segment only. */
async function segments(name: string, parts: Array<[string, number]>): Promise<{ file: string; keyframes: number[]; duration: number }> {
  const file = join(dir, name);
  const inputs = parts.flatMap(([c, d]) => ["-f", "lavfi", "-i", `color=${c}:s=320x240:r=25:d=${d}`]);
  const keyframes: number[] = [];
  let t = 0;
  for (const [, d] of parts) {
    keyframes.push(Number(t.toFixed(3)));
    t += d;
  }
  await ffmpeg(...inputs, "-filter_complex", `${parts.map((_, i) => `[${i}]`).join("")}concat=n=${parts.length}:v=1:a=0`,
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "1000", "-sc_threshold", "0",
    "-force_key_frames", keyframes.join(","), file);
  return { file, keyframes, duration: t };
}

/** Runs a pass plan as a probe does (as the tool user when root) and returns its stderr. */
async function runPlan(args: string[], outDir: string): Promise<string> {
  if (user) await chown(outDir, user.uid, user.gid);
  const { stderr } = await runTool("ffmpeg", args.map((a) => (a === "info" ? "verbose" : a)), { timeoutMs: 60_000 });
  return stderr;
}

const framesDecoded = (stderr: string) => Object.fromEntries(
  [...stderr.matchAll(/Input stream #(\d):\d+ \(video\): \d+ packets read \(\d+ bytes\); (\d+) frames decoded/g)].map((m) => [Number(m[1]), Number(m[2])]),
);

/** Which of red, green, blue, black a #rrggbb is. */
function named(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  if (r! < 40 && g! < 40 && b! < 40) return "black";
  return r! > g! && r! > b! ? "red" : g! > b! ? "green" : "blue";
}

let nearest: Awaited<ReturnType<typeof segments>>;
let blackKey: Awaited<ReturnType<typeof segments>>;
let allBlack: Awaited<ReturnType<typeof segments>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cva-poster-"));
  if (user) await chmod(dir, 0o711);
  // Keyframes at 0, 2.6 and 4.0; mid-duration 3.0 is blue, but the keyframe nearest it (2.6, 0.4 s away) is green.
  nearest = await segments("nearest.mp4", [["red", 2.6], ["green", 1.4], ["blue", 2]]);
  // Keyframes at 0 and 3.0 = mid-duration: the keyframe starts half a second of black, then blue.
  blackKey = await segments("black-key.mp4", [["red", 3], ["black", 0.5], ["blue", 2.5]]);
  allBlack = await segments("all-black.mp4", [["black", 2], ["black", 2]]);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the poster frame", () => {
  it("posterKeyframe: the keyframe nearest mid-duration, the earlier of two as near; none without an index", () => {
    expect(posterKeyframe([0, 2.6, 4], 6)).toBe(2.6);
    expect(posterKeyframe([0, 10], 15)).toBe(10);
    expect(posterKeyframe([0, 2, 4], 4)).toBe(2);
    expect(posterKeyframe([1, 3], 4)).toBe(1);
    expect(posterKeyframe([], 4)).toBeUndefined();
    expect(posterKeyframe([0, 2], 0)).toBeUndefined();
  });

  for (const pass of ["VAST media pass", "raw file pass"] as const) {
    const run = async (m: { file: string; keyframes: number[]; duration: number }, name: string) => {
      const outDir = await mkdtemp(join(dir, `${name}-`));
      const input = { input: m.file, outDir, videoIndex: 0, duration: m.duration, keyframes: m.keyframes };
      if (pass === "VAST media pass") {
        const plan = planVideoPass(input);
        const stderr = await runPlan(plan.args, outDir);
        return { result: await readVideoPass(plan, stderr, true), decoded: framesDecoded(stderr) };
      }
      const plan = planFileVideoPass(input);
      const stderr = await runPlan(plan.args, outDir);
      return { result: await readFileVideoPass(plan, stderr, true), decoded: framesDecoded(stderr) };
    };

    it(`${pass}: the keyframe nearest mid-duration, not the exact middle frame`, async () => {
      const { result, decoded } = await run(nearest, "nearest");
      expect(result.poster).toBeDefined();
      expect(named(dominantColour(result.posterRgb!))).toBe("green");
      // The VAST pass seeks to the keyframe: a few frames (the decoder's threads read ahead), not the GOP up to 3.0 s.
      if (pass === "VAST media pass") expect(decoded[2]).toBeLessThanOrEqual(5);
    });

    it(`${pass}: a black keyframe gives way to the first frame after it that is not black`, async () => {
      const { result } = await run(blackKey, "black-key");
      expect(named(dominantColour(result.posterRgb!))).toBe("blue");
    });

    it(`${pass}: with nothing but black, the keyframe itself`, async () => {
      const { result } = await run(allBlack, "all-black");
      expect(result.poster).toBeDefined();
      expect(named(dominantColour(result.posterRgb!))).toBe("black");
    });
  }
});
