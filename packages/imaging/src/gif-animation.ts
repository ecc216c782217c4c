/**
 * How long an animated GIF plays, read from its bytes: the frame delays (Graphic Control Extensions) and the loop
 * count (NETSCAPE2.0 application extension). The render watch keeps watching while a finite GIF still has frames to
 * show and knows a looping one never ends. Browsers show delays of 0 or 1 centisecond as 100 ms; a GIF without a
 * NETSCAPE block plays once; loop count 0 = forever, n = n repetitions after the first play.
 */
export interface GifAnimation {
  frames: number;
  /** One play, ms. */
  durationMs: number;
  /** Total plays; 0 = forever. */
  plays: number;
}

export function gifAnimation(b: Uint8Array): GifAnimation | undefined {
  if (b.length < 13 || String.fromCharCode(b[0]!, b[1]!, b[2]!) !== "GIF") return undefined;
  let i = 13;
  const flags = b[10]!;
  if (flags & 0x80) i += 3 * (1 << ((flags & 7) + 1)); // global colour table
  let frames = 0;
  let duration = 0;
  let pendingDelay = 0;
  let plays = 1;
  const skipSubBlocks = () => {
    while (i < b.length) {
      const n = b[i]!;
      i += 1 + n;
      if (n === 0) return;
    }
  };
  while (i < b.length) {
    const block = b[i]!;
    if (block === 0x3b) break; // trailer
    if (block === 0x21) {
      const label = b[i + 1]!;
      if (label === 0xf9 && i + 5 < b.length) {
        pendingDelay = b[i + 4]! | (b[i + 5]! << 8);
        i += 2;
        skipSubBlocks();
      } else if (label === 0xff && i + 14 < b.length) {
        const app = String.fromCharCode(...b.subarray(i + 3, i + 14));
        i += 2;
        const appBlockEnd = i + 1 + b[i]!;
        i = appBlockEnd;
        if ((app === "NETSCAPE2.0" || app === "ANIMEXTS1.0") && b[i] === 3 && b[i + 1] === 1 && i + 3 < b.length) {
          const loops = b[i + 2]! | (b[i + 3]! << 8);
          plays = loops === 0 ? 0 : loops + 1;
        }
        skipSubBlocks();
      } else {
        i += 2;
        skipSubBlocks();
      }
    } else if (block === 0x2c) {
      if (i + 10 > b.length) break;
      const lflags = b[i + 9]!;
      i += 10;
      if (lflags & 0x80) i += 3 * (1 << ((lflags & 7) + 1));
      i += 1; // LZW minimum code size
      skipSubBlocks();
      frames++;
      duration += pendingDelay <= 1 ? 100 : pendingDelay * 10;
      pendingDelay = 0;
    } else {
      break; // corrupt: keep what was read
    }
  }
  if (frames === 0) return undefined;
  return { frames, durationMs: frames > 1 ? duration : 0, plays: frames > 1 ? plays : 1 };
}
