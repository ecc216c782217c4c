/**
 * Dominant colour of a small rgb24 raster (ffmpeg scales the frame to 32x32 in the same decode pass): pixels are
 * bucketed at 4 bits per channel, the fullest bucket wins, and its pixels' mean is returned as #rrggbb. The mean of the
 * whole image would be a muddy mix no one sees; the fullest bucket is the colour that covers most of the picture.
 */
export function dominantColour(rgb: Uint8Array): string {
  const pixels = Math.floor(rgb.length / 3);
  if (pixels === 0) return "";
  const count = new Uint32Array(4096);
  const sums = new Float64Array(4096 * 3);
  for (let i = 0; i < pixels; i++) {
    const r = rgb[i * 3]!;
    const g = rgb[i * 3 + 1]!;
    const b = rgb[i * 3 + 2]!;
    const bucket = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
    count[bucket]++;
    sums[bucket * 3] += r;
    sums[bucket * 3 + 1] += g;
    sums[bucket * 3 + 2] += b;
  }
  let best = 0;
  for (let i = 1; i < 4096; i++) if (count[i]! > count[best]!) best = i;
  const n = count[best]!;
  const hex = (v: number) => Math.round(v / n).toString(16).padStart(2, "0");
  return `#${hex(sums[best * 3]!)}${hex(sums[best * 3 + 1]!)}${hex(sums[best * 3 + 2]!)}`;
}
