import { imageSize } from "./image-size.ts";
import { createImageWorkers, type ImageWork, type ImageWorkers } from "./image-work.ts";

// Image optimisation: an image is unoptimised when re-encoding it at the same quality makes it more than 10 % smaller
// (the spec set's threshold). "Same quality" per format:
//  - PNG is lossless: its pixel data (IDAT, with the filters its encoder chose) is deflated again at level 9 and the
//    chunks a browser does not need to draw it (text, EXIF, timestamps) are dropped. A PNG saved with fast or no
//    compression, or carrying an editor's metadata, shrinks; one from an optimiser does not.
//  - JPEG: decoded and encoded again at its own quality (estimated from its luminance quantisation table, IJG scale)
//    with standard Huffman tables and no metadata. A JPEG carrying a large EXIF/ICC/thumbnail or saved at a needlessly
//    high quality setting shrinks; an optimised one does not (jpeg-js's encoder does not optimise Huffman codes, so
//    the check errs towards "optimised").
//  - GIF, SVG, WebP are not re-encoded (no encoder here); they are not listed.

export interface ImageCheck {
  name: string;
  bytes: number;
  width: number;
  height: number;
  /** 0 when not checked; then `error` says why. */
  reencodedBytes: number;
  error: string;
}

export interface ImageCheckLimits {
  /**
   * Images larger than this many pixels (by their header) are not decoded (memory, time); also how many pixels the
   * process re-encodes at once, across zips (pixel-gate.ts).
   */
  maxPixels: number;
  /** Images checked at most per zip. */
  maxImages: number;
  /**
   * Absolute cap on a PNG's inflated pixel data. A PNG's own budget is what its header declares (at most 4 M pixels
   * × 8 bytes, 16-bit RGBA, plus a filter byte per row: 36 MB for the default maxPixels); this bounds it whatever the
   * header says.
   */
  maxInflatedBytes: number;
  /** jpeg-js's own allocation bound per decode, MB (128 lets a 4 MP JPEG through). */
  maxJpegMemoryMb: number;
  /** Heap of the image worker thread, MB (with `workers` given to checkImages: theirs). */
  workerHeapMb: number;
  /** Time one image may take on the worker. */
  perImageMs: number;
  /** Time all of a zip's images may take; those not reached by then are listed as not checked. */
  totalMs: number;
}

export const DEFAULT_IMAGE_CHECK_LIMITS: Readonly<ImageCheckLimits> = Object.freeze({
  maxPixels: 4_000_000,
  maxImages: 60,
  maxInflatedBytes: 36 * 1024 * 1024,
  maxJpegMemoryMb: 128,
  workerHeapMb: 128,
  // A 4 MP JPEG took 7 s on the 2-core machine at a load of 23 (jpeg-js is plain JavaScript); banner images take ms.
  perImageMs: 15_000,
  totalMs: 45_000,
});

/**
 * Re-encodes every PNG and JPEG on an image worker of this check's own (image-work.ts; from `workers`, else one made
 * for the call), one at a time. An image refused for a budget or that cannot be decoded is listed with why (`error`),
 * never a failed job: the zip's other fields and images are unaffected.
 */
export async function checkImages(
  files: ReadonlyArray<{ name: string; data: Uint8Array }>,
  overrides: Partial<ImageCheckLimits> = {},
  signal?: AbortSignal,
  workers?: ImageWorkers,
): Promise<ImageCheck[]> {
  const limits: ImageCheckLimits = { ...DEFAULT_IMAGE_CHECK_LIMITS, ...overrides };
  const own = workers ? undefined : createImageWorkers({ heapMb: limits.workerHeapMb, pixelsAtOnce: limits.maxPixels, idleMs: 0 });
  const out: ImageCheck[] = [];
  const deadline = Date.now() + limits.totalMs;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => stop.abort(), limits.totalMs);
  let work: (ImageWork & { release(): void }) | undefined;
  try {
    for (const f of files) {
      const size = imageSize(f.data);
      if (!size || (size.format !== "png" && size.format !== "jpeg")) continue;
      const check: ImageCheck = { name: f.name, bytes: f.data.length, width: size.width, height: size.height, reencodedBytes: 0, error: "" };
      out.push(check);
      if (signal?.aborted) check.error = "not checked: the scan ran out of time";
      else if (stop.signal.aborted || Date.now() >= deadline) check.error = `not checked: the image check's ${limits.totalMs} ms were used up`;
      else if (out.length > limits.maxImages) check.error = `not checked: more than ${limits.maxImages} images`;
      else if (size.width * size.height > limits.maxPixels) check.error = `not checked: larger than ${limits.maxPixels} pixels`;
      else {
        work ??= (workers ?? own!).acquire();
        const r = await work.reencode(size.format, f.data, {
          budget: { maxPixels: limits.maxPixels, maxInflatedBytes: limits.maxInflatedBytes, maxJpegMemoryMb: limits.maxJpegMemoryMb },
          perImageMs: limits.perImageMs,
          pixels: size.width * size.height,
          signal: stop.signal,
        });
        if (r.ok) check.reencodedBytes = r.bytes;
        else if (r.refused) check.error = `not checked: ${stop.signal.aborted && !signal?.aborted ? `the image check's ${limits.totalMs} ms were used up` : r.error}`;
        else check.error = `not checked: the ${size.format.toUpperCase()} could not be decoded (${r.error.slice(0, 100)})`;
      }
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    work?.release();
    await own?.close();
  }
  return out;
}
