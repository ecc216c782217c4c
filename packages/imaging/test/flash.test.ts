import { describe, expect, it } from "vitest";
import { createFlashAnalyzer, isSaturatedRed, relativeLuminance } from "../src/flash.ts";

// A 1366x768 viewport in 8 px cells (171x96); a square region of `size` CSS px alternating between two colours at
// `hz` flashes per second (two transitions per flash), sampled every `frameMs` ms for `seconds`.
const VIEW = { width: 1366, height: 768 };
const COLS = 171, ROWS = 96;
function run(opts: { hz: number; size: [number, number]; a: [number, number, number]; b: [number, number, number]; frameMs?: number; seconds?: number }) {
  const an = createFlashAnalyzer({ viewport: VIEW });
  const frameMs = opts.frameMs ?? 1000 / 60;
  const cw = Math.round(opts.size[0] / 8), ch = Math.round(opts.size[1] / 8);
  for (let t = 0; t <= (opts.seconds ?? 3) * 1000; t += frameMs) {
    const on = Math.floor((t / 1000) * opts.hz * 2) % 2 === 1;
    const c = on ? opts.b : opts.a;
    const g = new Uint8Array(COLS * ROWS * 3).fill(255);
    for (let y = 0; y < ch; y++) for (let x = 0; x < cw; x++) g.set(c, ((y + 10) * COLS + x + 10) * 3);
    an.push(t, g, COLS, ROWS);
  }
  return an.result();
}

describe("flash analyzer (WCAG 2.2 general and red flash)", () => {
  it("relative luminance and saturated red follow the WCAG formulas", () => {
    expect(relativeLuminance(255, 255, 255)).toBeCloseTo(1, 5);
    expect(relativeLuminance(0, 0, 0)).toBe(0);
    expect(relativeLuminance(128, 128, 128)).toBeCloseTo(0.2159, 3);
    expect(isSaturatedRed(255, 0, 0)).toBe(true);
    expect(isSaturatedRed(255, 128, 128)).toBe(false);
  });

  it("a full-area 300x250 black/white flash at 10 Hz fails, at 4 Hz fails, at 2 Hz passes", () => {
    const f10 = run({ hz: 10, size: [300, 250], a: [0, 0, 0], b: [255, 255, 255] });
    expect(f10.maxFlashesPerSecond).toBe(10);
    expect(f10.generalFails).toBe(true);
    const f4 = run({ hz: 4, size: [300, 250], a: [0, 0, 0], b: [255, 255, 255] });
    expect(f4.maxFlashesPerSecond).toBe(4);
    expect(f4.generalFails).toBe(true);
    const f2 = run({ hz: 2, size: [300, 250], a: [0, 0, 0], b: [255, 255, 255] });
    expect(f2.maxFlashesPerSecond).toBe(2);
    expect(f2.generalFails).toBe(false);
    expect(f10.areaThresholdPx).toBe(29141);
  });

  it("a small area (120x120 = 14 400 px², under the 29 141 px² quarter field) flashing at 10 Hz does not count", () => {
    const f = run({ hz: 10, size: [120, 120], a: [0, 0, 0], b: [255, 255, 255] });
    expect(f.maxFlashesPerSecond).toBe(0);
    expect(f.generalFails).toBe(false);
  });

  it("a light flash (both states above 0.8) is no transition; a 30 fps sampling still sees 10 Hz", () => {
    expect(run({ hz: 10, size: [300, 250], a: [240, 240, 240], b: [255, 255, 255] }).maxFlashesPerSecond).toBe(0);
    expect(run({ hz: 10, size: [300, 250], a: [0, 0, 0], b: [255, 255, 255], frameMs: 1000 / 30 }).generalFails).toBe(true);
  });

  it("a saturated red ↔ blue flash at 5 Hz of equal-ish luminance is a red flash", () => {
    // #ff0000 (L 0.213) ↔ #5050ff (L 0.166): under 0.1 apart, so no general flash; far apart in u'v' → red flashes.
    const f = run({ hz: 5, size: [300, 250], a: [255, 0, 0], b: [80, 80, 255] });
    expect(f.maxFlashesPerSecond).toBe(0);
    expect(f.maxRedFlashesPerSecond).toBe(5);
    expect(run({ hz: 3, size: [300, 250], a: [0, 0, 0], b: [255, 255, 255] }).generalFails).toBe(false);
    expect(f.redFails).toBe(true);
    expect(f.worstSecondMs).toBeGreaterThanOrEqual(0);
  });
});
