/** VAST time values: `HH:MM:SS` or `HH:MM:SS.mmm` (Duration, skipoffset) and `n%` (skipoffset of the duration). */

const CLOCK = /^(\d{1,3}):([0-5]?\d):([0-5]?\d(?:\.\d{1,3})?)$/;

/** Seconds of a `HH:MM:SS(.mmm)` value; undefined when it is not one. */
export function parseClock(value: string): number | undefined {
  const m = CLOCK.exec(value.trim());
  if (!m) return undefined;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/**
 * skipoffset in whole seconds (the report's int): a clock value as is, a percentage of the declared duration.
 * Rounded to the nearest second. Undefined when absent or unusable (a percentage without a usable duration).
 */
export function parseSkipOffset(value: string | undefined, durationSeconds: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === "") return undefined;
  const pct = /^(\d{1,3}(?:\.\d+)?)\s*%$/.exec(v);
  if (pct) {
    const p = Number(pct[1]);
    if (durationSeconds === undefined || p > 100) return undefined;
    return Math.round((durationSeconds * p) / 100);
  }
  const s = parseClock(v);
  return s === undefined ? undefined : Math.round(s);
}
