import { type GifAnimation, gifAnimation } from "./gif-animation.ts";

/**
 * How long an animated image plays, read from its bytes, for the three formats banners animate in: GIF
 * (gif-animation.ts), animated WebP (ANIM + ANMF chunks) and APNG (acTL + fcTL chunks). Without it the render watch
 * would take the still between two frames of a slow animation (a 1 s storyboard frame) for the end.
 *
 * As Chromium shows them: a frame of 10 ms or less lasts 100 ms (DeferredImageDecoder, as Firefox), a WebP loop count
 * or APNG play count of 0 is forever and n is n plays; a file with one frame is not animated.
 */
export type ImageAnimation = GifAnimation;

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));
const frameMs = (ms: number) => (ms <= 10 ? 100 : ms);
const result = (frames: number, duration: number, plays: number): ImageAnimation | undefined =>
  frames === 0 ? undefined : { frames, durationMs: frames > 1 ? Math.round(duration) : 0, plays: frames > 1 ? plays : 1 };

/** Animated WebP: RIFF chunks; ANIM carries the loop count, each ANMF a frame with its 24-bit duration (ms). */
export function webpAnimation(b: Uint8Array): ImageAnimation | undefined {
  if (b.length < 16 || ascii(b, 0, 4) !== "RIFF" || ascii(b, 8, 4) !== "WEBP") return undefined;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let frames = 0;
  let duration = 0;
  let plays = 1;
  let animated = false;
  for (let i = 12; i + 8 <= b.length;) {
    const type = ascii(b, i, 4);
    const size = dv.getUint32(i + 4, true);
    const p = i + 8;
    if (type === "ANIM" && size >= 6 && p + 6 <= b.length) {
      animated = true;
      plays = dv.getUint16(p + 4, true);
    } else if (type === "ANMF" && size >= 16 && p + 15 <= b.length) {
      frames++;
      duration += frameMs(b[p + 12]! | (b[p + 13]! << 8) | (b[p + 14]! << 16));
    }
    i = p + size + (size & 1);
  }
  return animated ? result(frames, duration, plays) : undefined;
}

/** APNG: acTL (before the image data) carries the play count, each fcTL a frame with its delay as a fraction of s. */
export function apngAnimation(b: Uint8Array): ImageAnimation | undefined {
  const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (b.length < 8 || PNG.some((v, k) => b[k] !== v)) return undefined;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let frames = 0;
  let duration = 0;
  let plays = 1;
  let animated = false;
  for (let i = 8; i + 8 <= b.length;) {
    const size = dv.getUint32(i);
    const type = ascii(b, i + 4, 4);
    const p = i + 8;
    if (type === "IEND") break;
    if (type === "acTL" && size >= 8 && p + 8 <= b.length) {
      animated = true;
      plays = dv.getUint32(p + 4);
    } else if (type === "fcTL" && size >= 26 && p + 26 <= b.length) {
      const num = dv.getUint16(p + 20);
      const den = dv.getUint16(p + 22) || 100; // a denominator of 0 means 1/100 s
      frames++;
      duration += frameMs((num * 1000) / den);
    }
    i = p + size + 4; // data, then the CRC
  }
  return animated ? result(frames, duration, plays) : undefined;
}

/** The timing of an animated GIF, WebP or APNG; undefined for anything else or a still image. */
export function imageAnimation(b: Uint8Array): ImageAnimation | undefined {
  return gifAnimation(b) ?? webpAnimation(b) ?? apngAnimation(b);
}
