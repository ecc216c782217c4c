/**
 * The fixed ad sizes of the IAB New Ad Portfolio (IAB Tech Lab, 2017), "Fixed Size Ad Specifications" table — as
 * transcribed in /work/shared/spec/iab-guidelines.md (row "Initial / subload") and packages/spec-sets' IAB_2017_WEIGHTS,
 * source: online.documentine.com/specifications/1/fixed-size-ad-specifications-iab.html and pdf4pro.com. Sizes the
 * portfolio delisted (468x60, 120x600, 300x600, ...) are not standard any more and are not listed.
 */
export const IAB_FIXED_SIZES: ReadonlyArray<readonly [size: string, name: string]> = [
  ["970x250", "Billboard"],
  ["300x50", "Smartphone Banner"],
  ["320x50", "Smartphone Banner"],
  ["728x90", "Leaderboard"],
  ["970x90", "Super Leaderboard/Pushdown"],
  ["300x1050", "Portrait"],
  ["160x600", "Skyscraper"],
  ["300x250", "Medium Rectangle"],
  ["120x60", "120x60"],
  ["640x1136", "Mobile Phone Interstitial"],
  ["750x1334", "Mobile Phone Interstitial"],
  ["1080x1920", "Mobile Phone Interstitial"],
  ["120x20", "Feature Phone Small Banner"],
  ["168x28", "Feature Phone Medium Banner"],
  ["216x36", "Feature Phone Large Banner"],
];

const BY_SIZE = new Set(IAB_FIXED_SIZES.map(([s]) => s));

/**
 * The IAB size an image of width x height (displayed pixels) is, or "". Exact match only: a 600x500 image is a
 * 300x250 at 2x only if the page shows it at half size, which the file cannot say.
 */
export function iabSize(width: number, height: number): string {
  const size = `${width}x${height}`;
  return BY_SIZE.has(size) ? size : "";
}
