import type { Raster } from "./raster.ts";

/**
 * Border: a contrasting frame 1–12 CSS px thick on all four sides (border, outline, box-shadow, or drawn in the
 * artwork). Each side is read inwards from the edge, leaving out its ends (rounded corners, corner anti-aliasing):
 * - a band: starting at the edge (or one device px in, where the clip of a box at a fractional position took in a
 *   blended row or a row of the host page), consecutive rows in which ≥ 80 % of the pixels are within BAND_TOL of
 *   the band colour (the median of its first row), so content drawn over the frame in places does not break it;
 * - between ¾ CSS px (one device px at scale 1) and MAX_BAND_CSS thick: from the 1 px keyline to the thick brand
 *   frame (5–10 px) a viewer calls a border just the same; a wider uniform edge is the ad's background around its
 *   content, not a frame. A thinner one at device scale ≥ 2 is the host page's row taken in by a fractional clip (so
 *   0.5 px hairlines at DPR 2/3 are not borders); a frame that is not flat across its thickness (its last row drifted
 *   away from its first) is a gradient or a soft shadow, not a keyline;
 * - contrasting with what is inside: ≥ 50 % of the pixels one or two device px past the band differ from the band
 *   colour by ≥ CONTRAST (anti-aliasing may blend the first of them; content touching the frame may match it).
 * The four bands need not share a colour or a thickness. Grey on white (#ccc on #fff differs by 51) is a border;
 * #e5e5e5 on #fff (26) is too faint to be seen as one.
 */
const BAND_TOL = 20;
/** The thickest frame that is still a border, CSS px. */
export const MAX_BAND_CSS = 12;
const BAND_SHARE = 0.8;
const DRIFT = 10;
const CONTRAST = 32;
const CONTRAST_SHARE = 0.5;

export function hasBorder(src: Raster, scale = 1): boolean {
  const s = Number.isFinite(scale) && scale > 0 ? scale : 1;
  const maxBand = Math.max(1, Math.floor(MAX_BAND_CSS * s + 0.25));
  // At least ¾ CSS px: at device scale ≥ 2 the clip of a box at a fractional position takes in one device row of the
  // host page, and a flat fill with one row of white page around it is not a framed creative.
  const minBand = Math.max(1, Math.floor(0.75 * s + 0.5));
  const depth = maxBand + 4; // one row of offset, the band, one more row to prove it ended, two rows inside
  const { width: w, height: h } = src;
  if (w < 2 * depth + 4 || h < 2 * depth + 4) return false;
  // A side as a (position along it, depth from the edge) → pixel offset map.
  const sides: Array<{ len: number; at: (p: number, d: number) => number }> = [
    { len: w, at: (p, d) => (d * w + p) * 4 },
    { len: w, at: (p, d) => ((h - 1 - d) * w + p) * 4 },
    { len: h, at: (p, d) => (p * w + d) * 4 },
    { len: h, at: (p, d) => (p * w + (w - 1 - d)) * 4 },
  ];
  return sides.every((side) => sideHasBand(src, side.len, side.at, s, minBand, maxBand));
}

function sideHasBand(src: Raster, len: number, at: (p: number, d: number) => number, s: number, minBand: number, maxBand: number): boolean {
  const skip = Math.min(Math.round(16 * s), Math.floor(len / 4));
  const from = skip, to = len - skip, n = to - from;
  if (n < 4) return false;
  const data = src.data;
  // Pixels composited on white (what the page shows for transparent ones), 3 channels each, per depth row.
  const rows: Uint8Array[] = [];
  const row = (d: number) => {
    let r = rows[d];
    if (r) return r;
    r = new Uint8Array(n * 3);
    for (let p = 0; p < n; p++) {
      const i = at(from + p, d);
      const a = data[i + 3]!;
      for (let c = 0; c < 3; c++) r[p * 3 + c] = a === 255 ? data[i + c]! : Math.round((data[i + c]! * a + 255 * (255 - a)) / 255);
    }
    rows[d] = r;
    return r;
  };
  const median = (r: Uint8Array) => {
    const out = [0, 0, 0];
    const hist = new Uint32Array(256);
    for (let c = 0; c < 3; c++) {
      hist.fill(0);
      for (let p = 0; p < n; p++) hist[r[p * 3 + c]!]!++;
      for (let v = 0, seen = 0; v < 256; v++) if ((seen += hist[v]!) * 2 >= n) { out[c] = v; break; }
    }
    return out;
  };
  const dist = (r: Uint8Array, p: number, col: number[]) =>
    Math.max(Math.abs(r[p * 3]! - col[0]!), Math.abs(r[p * 3 + 1]! - col[1]!), Math.abs(r[p * 3 + 2]! - col[2]!));
  const share = (r: Uint8Array, col: number[], test: (d: number) => boolean) => {
    let k = 0;
    for (let p = 0; p < n; p++) if (test(dist(r, p, col))) k++;
    return k / n;
  };
  for (const start of [0, 1]) {
    const color = median(row(start));
    if (share(row(start), color, (d) => d <= BAND_TOL) < BAND_SHARE) continue;
    // Starting one row in is only for a blended outer row, not a way to read a frame one row too thick as fitting.
    if (start > 0 && share(row(0), color, (d) => d <= BAND_TOL) >= BAND_SHARE) continue;
    let end = start;
    while (end + 1 - start < maxBand + 1 && share(row(end + 1), color, (d) => d <= BAND_TOL) >= BAND_SHARE) end++;
    const thickness = end + 1 - start;
    if (thickness > maxBand || thickness < minBand) continue;
    const last = median(row(end));
    if (Math.max(...last.map((v, c) => Math.abs(v - color[c]!))) > DRIFT) continue;
    const a = row(end + 1), b = row(end + 2);
    let k = 0;
    for (let p = 0; p < n; p++) if (dist(a, p, color) >= CONTRAST || dist(b, p, color) >= CONTRAST) k++;
    if (k / n >= CONTRAST_SHARE) return true;
  }
  return false;
}
