/**
 * Letterboxing from ffmpeg's cropdetect, run with `reset=1:skip=0` so that every analysed frame logs its own bounds of
 * non-black content (x1..x2, y1..y2) instead of a running union.
 *
 * Rule: a frame "has bars" when both top and bottom (letterbox), or both left and right (pillarbox), are black beyond a
 * tolerance of max(2 px, 2% of that dimension) — one dark edge is a dark scene, not a bar. Frames that are entirely
 * black (cropdetect reports x1 > x2) say nothing and are ignored. The video is letterboxed when at least 80% of the
 * remaining frames have bars: "consistently", so that a dark scene or a full-frame logo card does not flip the verdict.
 */
export interface CropFrame {
  x1: number;
  x2: number;
  y1: number;
  y2: number;
}

export function parseCropdetect(stderr: string): CropFrame[] {
  const frames: CropFrame[] = [];
  const re = /\[Parsed_cropdetect_\d+ @ [^\]]+\] x1:(-?\d+) x2:(-?\d+) y1:(-?\d+) y2:(-?\d+) /g;
  for (const m of stderr.matchAll(re)) {
    frames.push({ x1: Number(m[1]), x2: Number(m[2]), y1: Number(m[3]), y2: Number(m[4]) });
  }
  return frames;
}

export interface LetterboxVerdict {
  letterboxing: boolean;
  /** Frames with content that were judged, and how many of them had bars. */
  framesJudged: number;
  framesWithBars: number;
}

export function judgeLetterboxing(frames: CropFrame[], width: number, height: number): LetterboxVerdict {
  const tolX = Math.max(2, width * 0.02);
  const tolY = Math.max(2, height * 0.02);
  let judged = 0;
  let withBars = 0;
  for (const f of frames) {
    if (f.x1 > f.x2 || f.y1 > f.y2) continue; // all black
    judged++;
    const top = f.y1;
    const bottom = height - 1 - f.y2;
    const left = f.x1;
    const right = width - 1 - f.x2;
    if ((top > tolY && bottom > tolY) || (left > tolX && right > tolX)) withBars++;
  }
  return { letterboxing: judged > 0 && withBars / judged >= 0.8, framesJudged: judged, framesWithBars: withBars };
}
