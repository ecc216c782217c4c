/**
 * Letterboxing from ffmpeg's cropdetect, run with `reset=1:skip=0` so that every analysed frame (the keyframes, at most
 * 5 per second, plus the first visible frame and the poster: see video-pass.ts) logs its own bounds of non-black
 * content (x1..x2, y1..y2) instead of a running union.
 *
 * Rule, per frame, with a tolerance of max(2 px, 2% of the dimension):
 *  - "letterbox": black beyond the tolerance at the top AND the bottom, while the content spans the full width;
 *  - "pillarbox": black beyond the tolerance at the left AND the right, while the content spans the full height;
 *  - otherwise no bars. Content that is black on all four sides is a dark background around a small subject (a
 *    countdown on black, a logo), not bars; frames that are entirely black say nothing and are skipped.
 * The video is letterboxed when at least 80% of the judged frames show the same kind of bars AND the bar edge is
 * stable (within the tolerance of its median in at least 80% of those frames): real bars do not move, a dark scene's
 * edges do. "Consistently", so that one dark scene or a full-frame logo card does not flip the verdict.
 */
export interface CropFrame {
  x1: number;
  x2: number;
  y1: number;
  y2: number;
}

/**
 * Several cropdetect instances may judge the same frame (the video pass runs one per input, and the first visible
 * frame is often the first keyframe): a frame is counted once, by its time on the file's timeline.
 */
export function parseCropdetect(stderr: string): CropFrame[] {
  const frames: CropFrame[] = [];
  const seen = new Set<string>();
  const re = /\[Parsed_cropdetect_\d+ @ [^\]]+\] x1:(-?\d+) x2:(-?\d+) y1:(-?\d+) y2:(-?\d+) (?:[^\n]*?\bt:(\S+))?/g;
  for (const m of stderr.matchAll(re)) {
    const t = Number(m[5]);
    if (Number.isFinite(t)) {
      const key = t.toFixed(3);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    frames.push({ x1: Number(m[1]), x2: Number(m[2]), y1: Number(m[3]), y2: Number(m[4]) });
  }
  return frames;
}

export interface LetterboxVerdict {
  letterboxing: boolean;
  kind: "letterbox" | "pillarbox" | "";
  /** Frames with content that were judged, and how many of them had bars of the winning kind. */
  framesJudged: number;
  framesWithBars: number;
  /**
   * The bars' sizes in pixels when the verdict is bars (the median of each edge over the frames with bars of the
   * winning kind; the other two edges 0), else all 0.
   */
  bars: { top: number; bottom: number; left: number; right: number };
}

export function judgeLetterboxing(frames: CropFrame[], width: number, height: number): LetterboxVerdict {
  const tolX = Math.max(2, width * 0.02);
  const tolY = Math.max(2, height * 0.02);
  let judged = 0;
  const letterbox: number[] = []; // top edge of the content, per frame with letterbox bars
  const pillarbox: number[] = []; // left edge of the content, per frame with pillarbox bars
  const far: { letterbox: number[]; pillarbox: number[] } = { letterbox: [], pillarbox: [] }; // bottom / right bar
  for (const f of frames) {
    if (f.x1 > f.x2 || f.y1 > f.y2) continue; // all black
    judged++;
    const top = f.y1;
    const bottom = height - 1 - f.y2;
    const left = f.x1;
    const right = width - 1 - f.x2;
    const barsY = top > tolY && bottom > tolY;
    const barsX = left > tolX && right > tolX;
    const fullX = left <= tolX && right <= tolX;
    const fullY = top <= tolY && bottom <= tolY;
    if (barsY && fullX) {
      letterbox.push(top);
      far.letterbox.push(bottom);
    } else if (barsX && fullY) {
      pillarbox.push(left);
      far.pillarbox.push(right);
    }
  }
  const [kind, edges, tol] =
    letterbox.length >= pillarbox.length ? (["letterbox", letterbox, tolY] as const) : (["pillarbox", pillarbox, tolX] as const);
  const consistent = judged > 0 && edges.length / judged >= 0.8;
  let stable = false;
  if (consistent) {
    const mid = median(edges);
    stable = edges.filter((e) => Math.abs(e - mid) <= tol).length / edges.length >= 0.8;
  }
  const letterboxing = consistent && stable;
  const bars = { top: 0, bottom: 0, left: 0, right: 0 };
  if (letterboxing && kind === "letterbox") [bars.top, bars.bottom] = [median(edges), median(far.letterbox)];
  if (letterboxing && kind === "pillarbox") [bars.left, bars.right] = [median(edges), median(far.pillarbox)];
  return { letterboxing, kind: letterboxing ? kind : "", framesJudged: judged, framesWithBars: edges.length, bars };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
