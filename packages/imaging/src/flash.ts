// Photosensitivity: general flashes and red flashes in a sequence of frames, by the WCAG 2.2 definitions
// (https://www.w3.org/TR/WCAG22/#dfn-general-flash-and-red-flash-thresholds and Understanding SC 2.3.1).
//
//  - A transition is a change in relative luminance of at least 0.1 between a peak and the next valley (or the
//    reverse) where the darker state is below 0.80; a general flash is a pair of opposing transitions.
//  - A red transition is one to or from a saturated red (R/(R+G+B) ≥ 0.8, linear sRGB) whose chromaticity differs by
//    more than 0.2 in the CIE 1976 UCS (u′, v′) diagram (the WCAG 2.2 note, from ISO 9241-391); a red flash is a pair
//    of opposing red transitions.
//  - Transitions count only when those happening together (in the same frame, in the same direction) cover more than
//    25 % of a 10° visual field somewhere on the screen. WCAG estimates that field as 341x256 px of a 1024x768 screen,
//    a third of its width and height; we scale it to the viewing size the same way (a third of the viewport's width
//    and height, so the threshold is viewport area / 36: 29 141 CSS px² on a 1366x768 desktop, 9 143 on a 390x844
//    phone), and look for the worst-placed field (a sliding window).
//  - The threshold fails with more than three flashes (general or red) in any one second: four complete pairs of
//    opposing transitions (eight transitions) in a half-open 1 000 ms window. Complete pairs, because frame times
//    fall on the display's vsync: a steady 3 Hz flash shows 6 or 7 transitions in a window depending on where the
//    window starts, and half a flash is not a flash.
// Frames come as grids of sRGB cells (the caller averages blocks of pixels); each cell is tracked on its own, peak to
// valley, so a slow fade counts once however many frames it takes.

export interface FlashOptions {
  /** The viewing area (CSS px) the cell grid covers; its size sets the 10° field. */
  viewport: { width: number; height: number };
}

export interface FlashResult {
  /** Frames analysed. */
  frames: number;
  /** Most general flashes (complete pairs of opposing transitions) in any one second. */
  maxFlashesPerSecond: number;
  /** Most red flashes in any one second. */
  maxRedFlashesPerSecond: number;
  /** Start of the one-second window with the most flashes (general or red), in the caller's time unit (ms); -1 if none. */
  worstSecondMs: number;
  /** More than three general flashes in some second. */
  generalFails: boolean;
  /** More than three red flashes in some second. */
  redFails: boolean;
  /** The area threshold used: CSS px² of flashing within one 10° field. */
  areaThresholdPx: number;
  /** Times (ms) of counted frame-level transitions, general and red (at most 2 000 each kept). */
  transitions: number[];
  redTransitions: number[];
}

const MAX_KEPT = 2_000;
const LUM_STEP = 0.1;
const DARK_LIMIT = 0.8;
const RED_RATIO = 0.8;
const UV_STEP = 0.2;
/** D65 white's chromaticity: the one given to black, which has none (so red ↔ black is a red transition). */
const WHITE_U = 0.1978, WHITE_V = 0.4683;

const LINEAR = new Float32Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  LINEAR[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance of an sRGB colour (WCAG definition). */
export function relativeLuminance(r: number, g: number, b: number): number {
  return 0.2126 * LINEAR[r]! + 0.7152 * LINEAR[g]! + 0.0722 * LINEAR[b]!;
}

/** Whether an sRGB colour is a saturated red by the WCAG rule (R/(R+G+B) ≥ 0.8 on linear values). */
export function isSaturatedRed(r: number, g: number, b: number): boolean {
  const R = LINEAR[r]!, s = R + LINEAR[g]! + LINEAR[b]!;
  return s > 1e-4 && R / s >= RED_RATIO;
}

function chromaticity(r: number, g: number, b: number): [number, number] {
  const R = LINEAR[r]!, G = LINEAR[g]!, B = LINEAR[b]!;
  const X = 0.4124 * R + 0.3576 * G + 0.1805 * B;
  const Y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const Z = 0.0193 * R + 0.1192 * G + 0.9505 * B;
  const d = X + 15 * Y + 3 * Z;
  if (d < 1e-4) return [WHITE_U, WHITE_V];
  return [(4 * X) / d, (9 * Y) / d];
}

export interface FlashAnalyzer {
  /**
   * One frame at time `t` (ms): `rgb` holds `cols x rows` cells, 3 bytes each, covering the viewport. Frames come in
   * time order; a grid of another size restarts the cell tracking (a resized viewport).
   */
  push(t: number, rgb: Uint8Array, cols: number, rows: number): void;
  result(): FlashResult;
}

export function createFlashAnalyzer(opts: FlashOptions): FlashAnalyzer {
  const vw = Math.max(1, opts.viewport.width), vh = Math.max(1, opts.viewport.height);
  const areaThresholdPx = 0.25 * (vw / 3) * (vh / 3);
  let cols = 0, rows = 0;
  // Per cell: luminance tracking (anchor = last extreme, dir = direction of the last counted transition, 0 = none
  // yet; lo/hi = range seen before the first one) and red tracking (the reference state's chromaticity and redness).
  let cur = new Float32Array(0), lo = new Float32Array(0), hi = new Float32Array(0), dir = new Int8Array(0);
  let ru = new Float32Array(0), rv = new Float32Array(0), rRed = new Uint8Array(0), rDir = new Int8Array(0);
  let up = new Uint8Array(0), down = new Uint8Array(0), redUp = new Uint8Array(0), redDown = new Uint8Array(0);
  let sat = new Int32Array(0);
  let frames = 0;
  const general: Array<{ t: number; d: number }> = [];
  const red: Array<{ t: number; d: number }> = [];

  function reset(c: number, r: number) {
    cols = c; rows = r;
    const n = c * r;
    cur = new Float32Array(n); lo = new Float32Array(n); hi = new Float32Array(n); dir = new Int8Array(n);
    ru = new Float32Array(n); rv = new Float32Array(n); rRed = new Uint8Array(n); rDir = new Int8Array(n);
    up = new Uint8Array(n); down = new Uint8Array(n); redUp = new Uint8Array(n); redDown = new Uint8Array(n);
    sat = new Int32Array((c + 1) * (r + 1));
  }

  // Cells of one 10° field (a third of the viewport each way), and each cell's area in CSS px².
  const field = () => ({
    fc: Math.max(1, Math.min(cols, Math.round(cols / 3))),
    fr: Math.max(1, Math.min(rows, Math.round(rows / 3))),
    cellArea: (vw / cols) * (vh / rows),
  });

  /** Largest count of set cells in any field-sized window (summed-area table). */
  function worstField(mask: Uint8Array): number {
    const w = cols + 1;
    let any = false;
    for (let y = 0; y < rows; y++) {
      let row = 0;
      for (let x = 0; x < cols; x++) {
        const m = mask[y * cols + x]!;
        if (m) any = true;
        row += m;
        sat[(y + 1) * w + x + 1] = sat[y * w + x + 1]! + row;
      }
    }
    if (!any) return 0;
    const { fc, fr } = field();
    let best = 0;
    for (let y = fr; y <= rows; y++)
      for (let x = fc; x <= cols; x++) {
        const s = sat[y * w + x]! - sat[(y - fr) * w + x]! - sat[y * w + x - fc]! + sat[(y - fr) * w + x - fc]!;
        if (s > best) best = s;
      }
    return best;
  }

  function record(list: Array<{ t: number; d: number }>, t: number, d: number) {
    // A flash is a pair of opposing transitions: one in the same direction as the last adds nothing to a flash.
    const last = list[list.length - 1];
    if (last && last.d === d) return;
    if (list.length < 50_000) list.push({ t, d });
  }

  function push(t: number, rgb: Uint8Array, c: number, r: number) {
    const first = frames === 0 || c !== cols || r !== rows;
    if (c !== cols || r !== rows) reset(c, r);
    frames++;
    const n = c * r;
    up.fill(0); down.fill(0); redUp.fill(0); redDown.fill(0);
    let anyUp = false, anyDown = false, anyRedUp = false, anyRedDown = false;
    for (let i = 0; i < n; i++) {
      const R = rgb[i * 3]!, G = rgb[i * 3 + 1]!, B = rgb[i * 3 + 2]!;
      const L = relativeLuminance(R, G, B);
      const isRed = isSaturatedRed(R, G, B);
      const [u, v] = chromaticity(R, G, B);
      if (first) {
        cur[i] = L; lo[i] = L; hi[i] = L; dir[i] = 0;
        ru[i] = u; rv[i] = v; rRed[i] = isRed ? 1 : 0; rDir[i] = 0;
        continue;
      }
      // Luminance: peak-to-valley with hysteresis.
      const d = dir[i]!;
      if (d === 0) {
        if (L - lo[i]! >= LUM_STEP && lo[i]! < DARK_LIMIT) { up[i] = 1; anyUp = true; dir[i] = 1; cur[i] = L; }
        else if (hi[i]! - L >= LUM_STEP && L < DARK_LIMIT) { down[i] = 1; anyDown = true; dir[i] = -1; cur[i] = L; }
        else { if (L < lo[i]!) lo[i] = L; if (L > hi[i]!) hi[i] = L; }
      } else if (d === 1) {
        if (L > cur[i]!) cur[i] = L;
        else if (cur[i]! - L >= LUM_STEP && L < DARK_LIMIT) { down[i] = 1; anyDown = true; dir[i] = -1; cur[i] = L; }
      } else {
        if (L < cur[i]!) cur[i] = L;
        else if (L - cur[i]! >= LUM_STEP && cur[i]! < DARK_LIMIT) { up[i] = 1; anyUp = true; dir[i] = 1; cur[i] = L; }
      }
      // Red: to or from a saturated red, far enough in chromaticity from the reference state.
      const du = u - ru[i]!, dv = v - rv[i]!;
      if ((isRed || rRed[i]) && du * du + dv * dv > UV_STEP * UV_STEP) {
        const toward: number = isRed ? 1 : -1;
        if (toward !== rDir[i]) {
          if (toward === 1) { redUp[i] = 1; anyRedUp = true; } else { redDown[i] = 1; anyRedDown = true; }
          rDir[i] = toward;
        }
        ru[i] = u; rv[i] = v; rRed[i] = isRed ? 1 : 0;
      } else if (!rRed[i]) {
        // A non-red reference follows the colour (a slow drift is no transition); a red one holds until left.
        ru[i] = u; rv[i] = v; rRed[i] = isRed ? 1 : 0;
      }
    }
    if (first) return;
    const { cellArea } = field();
    const big = (mask: Uint8Array, any: boolean) => any && worstField(mask) * cellArea > areaThresholdPx;
    const gUp = big(up, anyUp), gDown = big(down, anyDown);
    if (gUp || gDown) record(general, t, gUp && gDown ? (general[general.length - 1]?.d === 1 ? -1 : 1) : gUp ? 1 : -1);
    const rUp = big(redUp, anyRedUp), rDown = big(redDown, anyRedDown);
    if (rUp || rDown) record(red, t, rUp && rDown ? (red[red.length - 1]?.d === 1 ? -1 : 1) : rUp ? 1 : -1);
  }

  /** Most transitions in a half-open 1 000 ms window, and where it starts. */
  function worst(list: Array<{ t: number }>): { n: number; at: number } {
    let best = { n: 0, at: -1 };
    let j = 0;
    for (let i = 0; i < list.length; i++) {
      while (list[i]!.t - list[j]!.t >= 1_000) j++;
      const n = i - j + 1;
      if (n > best.n) best = { n, at: list[j]!.t };
    }
    return best;
  }

  function result(): FlashResult {
    const g = worst(general), r = worst(red);
    const worse = g.n >= r.n ? g : r;
    return {
      frames,
      maxFlashesPerSecond: Math.floor(g.n / 2),
      maxRedFlashesPerSecond: Math.floor(r.n / 2),
      worstSecondMs: worse.n >= 2 ? worse.at : -1,
      generalFails: Math.floor(g.n / 2) > 3,
      redFails: Math.floor(r.n / 2) > 3,
      areaThresholdPx: Math.round(areaThresholdPx),
      transitions: general.slice(0, MAX_KEPT).map((e) => e.t),
      redTransitions: red.slice(0, MAX_KEPT).map((e) => e.t),
    };
  }

  return { push, result };
}
