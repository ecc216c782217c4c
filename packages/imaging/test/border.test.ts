// has_border from pixels: synthetic RGBA rasters of the creative's box at device scale, as the screenshot gives them.
import { describe, expect, it } from "vitest";
import { hasBorder, type Raster } from "../src/index.ts";

type RGB = [number, number, number];
type RGBA = [number, number, number, number];
const BLACK: RGB = [0, 0, 0];
const WHITE: RGB = [255, 255, 255];

function raster(w: number, h: number, paint: (x: number, y: number) => RGB | RGBA): Raster {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const c = paint(x, y);
      data.set(c.length === 4 ? c : [...c, 255], (y * w + x) * 4);
    }
  return { width: w, height: h, data };
}

/** Device pixels from the nearest edge. */
const edge = (w: number, h: number, x: number, y: number) => Math.min(x, y, w - 1 - x, h - 1 - y);

/** A w x h CSS px creative at scale s: a band of `t` CSS px of `band` around `inside`. */
function framed(w: number, h: number, t: number, band: RGB, inside: RGB | ((x: number, y: number) => RGB), s = 1): Raster {
  const W = w * s, H = h * s;
  const fill = typeof inside === "function" ? inside : () => inside;
  return raster(W, H, (x, y) => (edge(W, H, x, y) < t * s ? band : fill(x, y)));
}

/** Deterministic noise (a photo edge). */
function noise(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (): RGB => [Math.floor(next() * 256), Math.floor(next() * 256), Math.floor(next() * 256)];
}

const mix = (a: RGB, b: RGB, k: number): RGB => [0, 1, 2].map((c) => Math.round(a[c]! * (1 - k) + b[c]! * k)) as RGB;

describe("hasBorder", () => {
  it("solid frames of 1, 2, 3 and 4 CSS px, at device scale 1, 2 and 3", () => {
    for (const s of [1, 2, 3])
      for (const t of [1, 2, 3, 4]) {
        expect(hasBorder(framed(300, 250, t, BLACK, WHITE, s), s), `${t}px at ${s}x`).toBe(true);
        expect(hasBorder(framed(300, 250, t, [200, 0, 0], [255, 230, 0], s), s), `${t}px red on yellow at ${s}x`).toBe(true);
      }
    expect(hasBorder(framed(970, 250, 1, BLACK, WHITE))).toBe(true);
    expect(hasBorder(framed(320, 50, 1, BLACK, WHITE, 3), 3)).toBe(true);
    expect(hasBorder(framed(160, 600, 2, BLACK, WHITE, 2), 2)).toBe(true);
  });

  it("grey keylines on white are borders; one too faint to see is not", () => {
    expect(hasBorder(framed(300, 250, 1, [204, 204, 204], WHITE))).toBe(true); // #ccc
    expect(hasBorder(framed(300, 250, 1, [153, 153, 153], WHITE))).toBe(true); // #999
    expect(hasBorder(framed(300, 250, 1, [221, 221, 221], WHITE))).toBe(true); // #ddd
    expect(hasBorder(framed(300, 250, 1, [204, 204, 204], WHITE, 3), 3)).toBe(true);
    expect(hasBorder(framed(300, 250, 1, [238, 238, 238], WHITE))).toBe(false); // #eee
  });

  it("an inset box-shadow frame (translucent black over the fill), with or without a soft inner row", () => {
    const fill: RGB = [51, 102, 204];
    const shade = mix(fill, BLACK, 0.4);
    expect(hasBorder(framed(300, 250, 2, shade, fill))).toBe(true);
    expect(hasBorder(framed(300, 250, 2, shade, fill, 3), 3)).toBe(true);
    // inset 0 0 1px 2px: the band, then a row half way to the fill.
    const soft = raster(300, 250, (x, y) => {
      const d = edge(300, 250, x, y);
      return d < 2 ? shade : d === 2 ? mix(shade, fill, 0.5) : fill;
    });
    expect(hasBorder(soft)).toBe(true);
  });

  it("a thick frame (5–12 CSS px) is a border too; a wider uniform edge is the ad's background around its content", () => {
    for (const s of [1, 2, 3]) {
      for (const t of [5, 6, 8, 10, 12]) expect(hasBorder(framed(300, 250, t, BLACK, WHITE, s), s), `${t}px at ${s}x`).toBe(true);
      for (const t of [13, 16, 24]) expect(hasBorder(framed(300, 250, t, BLACK, WHITE, s), s), `${t}px at ${s}x`).toBe(false);
    }
    // A thick brand frame around a photo.
    const photo = noise(5);
    expect(hasBorder(framed(300, 250, 8, [200, 16, 46], () => photo()))).toBe(true);
  });

  it("flat fills, gradients, noise and images running to the edge are not borders", () => {
    expect(hasBorder(raster(300, 250, () => [200, 0, 0]))).toBe(false);
    expect(hasBorder(raster(300, 250, () => WHITE))).toBe(false);
    expect(hasBorder(raster(300, 250, () => [0, 0, 0, 0]))).toBe(false); // transparent: the white page
    for (const s of [1, 3]) {
      const W = 300 * s, H = 250 * s;
      const lr = raster(W, H, (x) => mix(BLACK, WHITE, x / (W - 1)));
      const tb = raster(W, H, (_x, y) => mix([255, 0, 0], [0, 0, 255], y / (H - 1)));
      const diagonal = raster(W, H, (x, y) => mix([0, 128, 0], [255, 255, 0], (x + y) / (W + H - 2)));
      const radial = raster(W, H, (x, y) => mix(WHITE, BLACK, Math.min(1, Math.hypot(x - W / 2, y - H / 2) / Math.hypot(W / 2, H / 2))));
      // A vignette darkening towards the edge over 40 px. (One that goes from black to white within a few px
      // reads as a dark keyline, which is what a viewer sees too.)
      const vignette = raster(W, H, (x, y) => { const d = edge(W, H, x, y) / s; return mix(BLACK, WHITE, Math.min(1, d / 40)); });
      const photo = noise(7 * s);
      const photoEdge = raster(W, H, () => photo());
      for (const [name, r] of Object.entries({ lr, tb, diagonal, radial, vignette, photoEdge })) expect(hasBorder(r, s), `${name} at ${s}x`).toBe(false);
    }
    // The old gradient fixture.
    expect(hasBorder(raster(300, 250, (x, y) => [x % 256, y % 256, 128]))).toBe(false);
    // A soft outer shadow (0 0 6px): a fade, not a keyline.
    expect(hasBorder(raster(312, 262, (x, y) => { const d = edge(312, 262, x, y); return d >= 6 ? WHITE : mix(WHITE, [128, 128, 128], (d + 1) / 7); }))).toBe(false);
  });

  it("an edge of another colour on one side only, or on three sides, is not a frame", () => {
    expect(hasBorder(raster(300, 250, (x) => (x < 2 ? [200, 0, 0] : WHITE)))).toBe(false);
    expect(hasBorder(raster(300, 250, (x, y) => (y < 1 || y > 248 ? BLACK : WHITE)))).toBe(false);
    expect(hasBorder(raster(300, 250, (x, y) => (y > 248 ? WHITE : x < 1 || y < 1 || x > 298 ? BLACK : WHITE)))).toBe(false);
  });

  it("each side may have its own colour and thickness", () => {
    const r = raster(300, 250, (x, y) => (y < 2 ? [0, 0, 200] : x < 1 || x > 298 || y > 248 ? BLACK : WHITE));
    expect(hasBorder(r)).toBe(true);
  });

  it("a photo inside a keyline, content touching or covering the keyline in places", () => {
    const photo = noise(3);
    expect(hasBorder(framed(300, 250, 1, BLACK, () => photo()))).toBe(true);
    // Black headline blocks touching the top keyline over 40 % of its length.
    const touching = framed(300, 250, 1, BLACK, (x, y) => (y < 40 && x % 50 < 20 ? BLACK : WHITE));
    expect(hasBorder(touching)).toBe(true);
    // A logo painted over 10 % of the top keyline.
    const covered = framed(300, 250, 1, BLACK, WHITE);
    for (let y = 0; y < 30; y++) for (let x = 100; x < 130; x++) covered.data.set([220, 20, 60, 255], (y * 300 + x) * 4);
    expect(hasBorder(covered)).toBe(true);
  });

  it("rounded corners and anti-aliased edges", () => {
    // A 1 px #999 frame with 12 px corners: outside the curve is the white page.
    const rounded = (s: number, t: number, rad: number) => {
      const W = 300 * s, H = 250 * s, R = rad * s;
      return raster(W, H, (x, y) => {
        const px = x + 0.5, py = y + 0.5;
        const qx = Math.abs(px - W / 2) - (W / 2 - R), qy = Math.abs(py - H / 2) - (H / 2 - R);
        const d = Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - R; // ≤ 0 inside
        if (d > 0) return WHITE;
        return d > -t * s ? [153, 153, 153] : [255, 250, 240];
      });
    };
    expect(hasBorder(rounded(1, 1, 12))).toBe(true);
    expect(hasBorder(rounded(3, 2, 24), 3)).toBe(true);
    // A 1 px line laid across two device rows (60 % / 40 % coverage).
    const aa = raster(300, 250, (x, y) => { const d = edge(300, 250, x, y); return d === 0 ? mix(WHITE, BLACK, 0.6) : d === 1 ? mix(WHITE, BLACK, 0.4) : WHITE; });
    expect(hasBorder(aa)).toBe(true);
  });

  it("a box at a fractional position: one device row of the host page around it", () => {
    const pageRow = (r: Raster): Raster => {
      const out = raster(r.width + 2, r.height + 2, (x, y) => {
        if (edge(r.width + 2, r.height + 2, x, y) === 0) return WHITE;
        const i = ((y - 1) * r.width + (x - 1)) * 4;
        return [r.data[i]!, r.data[i + 1]!, r.data[i + 2]!];
      });
      return out;
    };
    expect(hasBorder(pageRow(framed(300, 250, 1, [204, 204, 204], WHITE, 2)), 2)).toBe(true);
    expect(hasBorder(pageRow(framed(300, 250, 1, BLACK, [40, 90, 200], 3)), 3)).toBe(true);
    // A flat fill is not framed by the page's own white.
    expect(hasBorder(pageRow(raster(600, 500, () => [204, 0, 0])), 2)).toBe(false);
    expect(hasBorder(pageRow(raster(900, 750, () => [204, 0, 0])), 3)).toBe(false);
    // Nor a frame one row too thick by reading it one row in.
    expect(hasBorder(framed(300, 250, 13, BLACK, WHITE))).toBe(false);
  });

  it("too small to tell", () => {
    expect(hasBorder(framed(8, 8, 1, BLACK, WHITE))).toBe(false);
  });

  it("fast: a 970x250 at scale 1 and a 300x250 at scale 3", () => {
    const photo = noise(11);
    const cases: Array<[Raster, number]> = [
      [framed(970, 250, 1, BLACK, () => photo()), 1],
      [raster(970, 250, () => [200, 0, 0]), 1],
      [framed(300, 250, 1, BLACK, WHITE, 3), 3],
      [raster(900, 750, () => WHITE), 3],
    ];
    for (const [r, s] of cases) {
      hasBorder(r, s);
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const t = performance.now();
        hasBorder(r, s);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      expect(times[3]!).toBeLessThan(5);
    }
  });
});
