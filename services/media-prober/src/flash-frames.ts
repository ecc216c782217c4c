import { open } from "node:fs/promises";
import { join } from "node:path";
import { createFlashAnalyzer, type FlashResult } from "@cva/imaging";
import { FILTER_UNTHREADED } from "./file-limits.ts";

/*
 * Photosensitivity of a raw video file (issue 25 §1, WCAG 2.2 SC 2.3.1): one more branch of the file video pass
 * (file-video-pass.ts decodes every frame once; this takes its frames from that same decode) and the tag scanner's
 * flash analysis (@cva/imaging flash.ts) over them.
 *
 * The branch: the frames at the video's own rate (ffmpeg's fps filter, at most MAX_FPS: a 10 Hz flash needs 20
 * frames a second, and a display shows no more than 60), averaged (`scale` with area averaging, the same as the tag
 * scanner's 8x8 CSS px cells) into a grid of GRID_LONG cells along the long side, as 8-bit sRGB, written raw to one
 * file. The analysis reads that file after the pass. 48x27 cells of a 1920x1080 video are 40 px squares; the flash
 * area threshold (a quarter of a third of the picture each way, 57 600 px² at 1080p) is 36 cells, so the area rule is
 * resolved to a few per cent.
 *
 * Bounded: at most MAX_BYTES of grid (3.9 KB a frame at 16:9: 10 700 frames, 6 minutes at 30 fps), far under the
 * 64 MB per written file of exec.ts; a longer video is analysed up to there and, when no risk was seen before, its
 * verdict says "not judged" with how much was analysed. Cost: measured in the README ("Photosensitivity").
 */

/** Cells along the picture's long side. */
export const GRID_LONG = 48;
/** The highest frame rate analysed. */
export const MAX_FPS = 60;
/** The grid file's largest size. */
export const MAX_BYTES = 40 * 1024 * 1024;

export interface FlashPlanInput {
  outDir: string;
  /** The picture's display size (after rotation: ffmpeg's filters see rotated frames). */
  width: number;
  height: number;
  /** The stream's frame rate as ffprobe states it ("30000/1001"); "" or 0/0 when unknown. */
  frameRate: string;
}

export interface FlashPlan {
  /** One filter-graph chain from the input label `[<inLabel>]` to `[flashgrid]`. */
  chain(inLabel: string): string;
  /** Output options of the grid file, to go with the pass's other outputs. */
  outputArgs: string[];
  path: string;
  cols: number;
  rows: number;
  fps: number;
  /** ffmpeg's fps value (an exact fraction when the stream states one under MAX_FPS). */
  fpsExpr: string;
  maxFrames: number;
  width: number;
  height: number;
}

/** The grid branch, or undefined when the picture has no size. */
export function planFlashFrames(p: FlashPlanInput): FlashPlan | undefined {
  if (!(p.width > 0 && p.height > 0)) return undefined;
  const landscape = p.width >= p.height;
  const short = Math.max(1, Math.round((GRID_LONG * Math.min(p.width, p.height)) / Math.max(p.width, p.height)));
  const cols = landscape ? GRID_LONG : short;
  const rows = landscape ? short : GRID_LONG;
  const { fps, expr } = analysisRate(p.frameRate);
  const maxFrames = Math.floor(MAX_BYTES / (cols * rows * 3));
  const path = join(p.outDir, "flash.rgb");
  return {
    // Unthreaded: in a graph with filter threads (the raw file pass, file-limits.ts FILE_VIDEO_PASS_FILTER_THREADS) a
    // 48-cell picture is less work than a hand-off to a filter thread.
    chain: (inLabel) => `[${inLabel}]fps=${expr},scale=${cols}:${rows}:flags=area:${FILTER_UNTHREADED},format=rgb24,trim=end_frame=${maxFrames}[flashgrid]`,
    outputArgs: ["-map", "[flashgrid]", "-f", "rawvideo", path],
    path, cols, rows, fps, fpsExpr: expr, maxFrames, width: p.width, height: p.height,
  };
}

function analysisRate(stated: string): { fps: number; expr: string } {
  const [n, d] = stated.split("/").map(Number);
  const rate = d ? n! / d : Number(stated);
  if (!(rate > 0) || !Number.isFinite(rate)) return { fps: 30, expr: "30" };
  if (rate > MAX_FPS) return { fps: MAX_FPS, expr: String(MAX_FPS) };
  return { fps: rate, expr: d ? `${n}/${d}` : String(rate) };
}

export interface FlashVerdict extends FlashResult {
  /** False when no risk was seen but frames past the budget were not analysed. */
  judged: boolean;
  notJudgedReason: string;
  fps: number;
}

/**
 * Reads the grid file of a pass that finished and runs the WCAG analysis, frame by frame (time = index / fps, ms after
 * the first frame). Undefined when the file is missing or holds no whole frame.
 */
export async function analyseFlashFrames(plan: FlashPlan, durationS: number): Promise<FlashVerdict | undefined> {
  const frameBytes = plan.cols * plan.rows * 3;
  let data: Buffer;
  try {
    const fh = await open(plan.path, "r");
    try {
      const { size } = await fh.stat();
      data = Buffer.alloc(Math.min(size, MAX_BYTES));
      await fh.read(data, 0, data.length, 0);
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
  const frames = Math.floor(data.length / frameBytes);
  if (frames === 0) return undefined;
  const analyzer = createFlashAnalyzer({ viewport: { width: plan.width, height: plan.height } });
  for (let i = 0; i < frames; i++) {
    analyzer.push((i * 1000) / plan.fps, data.subarray(i * frameBytes, (i + 1) * frameBytes), plan.cols, plan.rows);
  }
  return flashVerdictOf(plan, analyzer.result(), frames, durationS);
}

/** The verdict over `frames` analysed frames of a video of `durationS` (shared with file-flash-follow.ts). */
export function flashVerdictOf(plan: FlashPlan, result: FlashResult, frames: number, durationS: number): FlashVerdict {
  const analysedS = frames / plan.fps;
  // The budget cut the video short (not a rounding of its last frame): a pass over what was not seen is not a pass.
  const cut = frames >= plan.maxFrames && durationS - analysedS > 1 / plan.fps;
  const risk = result.generalFails || result.redFails;
  return {
    ...result,
    fps: plan.fps,
    judged: risk || !cut,
    notJudgedReason: risk || !cut ? "" : `only the first ${analysedS.toFixed(1)} s of ${durationS.toFixed(1)} s were analysed (the flash analysis's frame budget)`,
  };
}
