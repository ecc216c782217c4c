/*
 * What a programme does at its ends and in between, from the events ffmpeg's detection filters log (at info level):
 * blackdetect (black picture runs), freezedetect (unchanged picture runs), silencedetect (silent audio runs). Times are
 * seconds on ffmpeg's filter timeline (the file's start time subtracted).
 *
 * Runs that last until the end of the stream: the video analysis branch ends in one white sentinel frame (tpad), placed
 * where the last frame ends, so blackdetect and freezedetect close such a run at the stream's true end (without it
 * blackdetect ends it at the last frame's *start* and freezedetect never ends it); a showinfo on that branch logs the
 * first analysed frame and the last second's frames, the sentinel last, which is how a run "to the end" is told from one
 * that ended at the last frame. silencedetect closes an open run itself, at the end of the last samples.
 */
export interface Interval {
  start: number;
  end: number;
}

const num = (s: string | undefined) => (s === undefined ? NaN : Number(s));

/** `black_start:0 black_end:1 black_duration:1`, one line per run. */
export function parseBlackdetect(stderr: string): Interval[] {
  const out: Interval[] = [];
  for (const m of stderr.matchAll(/\bblack_start:(-?[\d.]+) black_end:(-?[\d.]+)/g)) {
    const start = num(m[1]);
    const end = num(m[2]);
    if (Number.isFinite(start) && Number.isFinite(end) && end >= start) out.push({ start, end });
  }
  return out;
}

/**
 * `lavfi.freezedetect.freeze_start: 2` … `freeze_end: 2.6`; a start without an end (no sentinel reached it: the pass
 * was cut short) is dropped, because its length is not known.
 */
export function parseFreezedetect(stderr: string): Interval[] {
  const out: Interval[] = [];
  let open: number | undefined;
  for (const m of stderr.matchAll(/lavfi\.freezedetect\.freeze_(start|end): (-?[\d.]+)/g)) {
    const t = num(m[2]);
    if (!Number.isFinite(t)) continue;
    if (m[1] === "start") open = t;
    else if (open !== undefined) {
      if (t >= open) out.push({ start: open, end: t });
      open = undefined;
    }
  }
  return out;
}

/** `silence_start: 0` … `silence_end: 0.998 | silence_duration: 0.998`. */
export function parseSilencedetect(stderr: string): Interval[] {
  const out: Interval[] = [];
  let open: number | undefined;
  for (const m of stderr.matchAll(/\bsilence_(start|end): (-?[\d.]+)/g)) {
    const t = num(m[2]);
    if (!Number.isFinite(t)) continue;
    if (m[1] === "start") open = t;
    else if (open !== undefined) {
      if (t >= open) out.push({ start: open, end: t });
      open = undefined;
    }
  }
  return out;
}

/** Frame times logged by the analysis branch's showinfo (`pts_time:1.96`), in order: first frame … sentinel. */
export function parseShowinfoTimes(stderr: string): number[] {
  const out: number[] = [];
  for (const m of stderr.matchAll(/\[Parsed_showinfo_\d+ @ [^\]]+\] n:\s*\d+ pts:\s*-?\d+ pts_time:(-?[\d.]+)/g)) {
    const t = num(m[1]);
    if (Number.isFinite(t)) out.push(t);
  }
  return out;
}

/** ms, rounded. */
const ms = (s: number) => Math.max(0, Math.round(s * 1000));

/**
 * The run that covers the start: its length when it starts at the first frame/sample (within `tol` s), else 0 — the
 * programme starts with picture (sound).
 */
export function leadingMs(runs: Interval[], first: number, tol: number): number {
  const run = runs.find((r) => r.start <= first + tol);
  return run ? ms(run.end - Math.min(run.start, first)) : 0;
}

/** The run that reaches the end (`end` within `tol` s), else 0. */
export function trailingMs(runs: Interval[], end: number, tol: number): number {
  const run = [...runs].reverse().find((r) => r.end >= end - tol);
  return run ? ms(Math.min(run.end, end) - run.start) : 0;
}

/**
 * The longest stretch of frozen picture that is not black picture, ms: a black slate is also a run of identical
 * frames, and it is reported as black (leading/trailing_black_ms), not as a freeze. What is left of a freeze once its
 * black part is taken out counts only if it still lasts `minS` (the detector's own minimum).
 */
export function longestFreezeMs(freezes: Interval[], blacks: Interval[], minS: number): number {
  const sortedBlacks = [...blacks].sort((a, b) => a.start - b.start);
  let longest = 0;
  for (const f of freezes) {
    let pieces: Interval[] = [f];
    for (const b of sortedBlacks) {
      pieces = pieces.flatMap((p) => {
        if (b.end <= p.start || b.start >= p.end) return [p];
        const left = b.start > p.start ? [{ start: p.start, end: b.start }] : [];
        const right = b.end < p.end ? [{ start: b.end, end: p.end }] : [];
        return [...left, ...right];
      });
    }
    for (const p of pieces) if (p.end - p.start >= minS - 1e-6) longest = Math.max(longest, p.end - p.start);
  }
  return ms(longest);
}
