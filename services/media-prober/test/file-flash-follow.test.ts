import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followFlashFrames, POLL_MS } from "../src/file-flash-follow.ts";
import { analyseFlashFrames, planFlashFrames, type FlashPlan } from "../src/flash-frames.ts";

// The flash analysis that follows the video pass's grid file (file-flash-follow.ts) gives the verdict the whole-file
// analysis gives, whatever the cut of the writes: frames split across writes, the file created late, a pass that failed.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cva-flash-follow-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A full-grid flash: white/black alternating every `period` frames, for `frames` frames. */
function grid(plan: FlashPlan, frames: number, period: number): Buffer {
  const frameBytes = plan.cols * plan.rows * 3;
  const out = Buffer.alloc(frameBytes * frames);
  for (let i = 0; i < frames; i++) if (Math.floor(i / period) % 2 === 0) out.fill(255, i * frameBytes, (i + 1) * frameBytes);
  return out;
}

const until = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("followFlashFrames", () => {
  it("frames written in odd-sized pieces while it follows: the same verdict and frame count as analyseFlashFrames", async () => {
    const sub = await mkdtemp(join(dir, "a-"));
    const plan = planFlashFrames({ outDir: sub, width: 1920, height: 1080, frameRate: "30/1" })!;
    // 4 Hz at 30 fps: a change every 4 frames (7.5 a second: 3.75 flashes), 3 s.
    const data = grid(plan, 90, 4);
    const follower = followFlashFrames(plan);
    // The file appears only after a first look found nothing; then pieces that cut frames in two.
    await until(POLL_MS + 50);
    const piece = Math.floor((plan.cols * plan.rows * 3) * 2.5);
    for (let at = 0; at < data.length; at += piece) {
      await appendFile(plan.path, data.subarray(at, Math.min(data.length, at + piece)));
      if (at % (piece * 8) === 0) await until(POLL_MS + 20);
    }
    const followed = await follower.finish(true, 3);
    const whole = await analyseFlashFrames(plan, 3);
    expect(followed).toBeDefined();
    expect(followed).toEqual(whole);
    expect(followed!.frames).toBe(90);
    expect(followed!.generalFails).toBe(true);
  });

  it("a pass that did not finish gives no verdict; nor does one that wrote no frame", async () => {
    const sub = await mkdtemp(join(dir, "b-"));
    const plan = planFlashFrames({ outDir: sub, width: 640, height: 360, frameRate: "25/1" })!;
    const follower = followFlashFrames(plan);
    await appendFile(plan.path, grid(plan, 10, 2));
    expect(await follower.finish(false, 1)).toBeUndefined();
    const empty = followFlashFrames(planFlashFrames({ outDir: await mkdtemp(join(dir, "c-")), width: 640, height: 360, frameRate: "25/1" })!);
    expect(await empty.finish(true, 1)).toBeUndefined();
  });
});
