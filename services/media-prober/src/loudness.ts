/** EBU R128 figures parsed from the Summary block ffmpeg's ebur128 filter logs (at info level) when it closes. */
export interface LoudnessFacts {
  lufs: number;
  lra: number;
  truePeak: number;
}

/**
 * Floor for a true peak of digital silence, which ebur128 prints as "-inf dBFS": -inf has no JSON number form, and
 * no 24-bit signal can be quieter than about -144 dBFS.
 */
export const TRUE_PEAK_FLOOR = -144;

/**
 * Only the Summary is read, never per-frame lines: `framelog=verbose` keeps those out of the info log, and the last
 * momentary "I:" on a frame line is not the integrated figure of the whole file. (ffmpeg 5.1 trap: `framelog=quiet`
 * is not a valid value there and the measurement silently comes out as 0 — hence a test with a known loudness.)
 */
export function parseEbur128Summary(stderr: string): LoudnessFacts | undefined {
  const at = stderr.lastIndexOf("Summary:");
  if (at < 0) return undefined;
  const summary = stderr.slice(at);
  const num = (re: RegExp) => {
    const m = re.exec(summary);
    if (!m) return undefined;
    if (/^-inf$/i.test(m[1]!)) return -Infinity;
    const v = Number(m[1]);
    return Number.isFinite(v) ? v : undefined;
  };
  const lufs = num(/Integrated loudness:\s*\n\s*I:\s*(-?inf|-?[\d.]+)\s*LUFS/i);
  const lra = num(/Loudness range:\s*\n\s*LRA:\s*(-?inf|-?[\d.]+)\s*LU/i);
  const peak = num(/True peak:\s*\n\s*Peak:\s*(-?inf|-?[\d.]+)\s*dBFS/i);
  if (lufs === undefined) return undefined;
  return {
    lufs: Number.isFinite(lufs) ? lufs : -70, // ebur128's own floor for gated-out (silent) programmes
    lra: lra !== undefined && Number.isFinite(lra) ? lra : 0,
    truePeak: peak === undefined ? TRUE_PEAK_FLOOR : Math.max(peak, TRUE_PEAK_FLOOR),
  };
}
