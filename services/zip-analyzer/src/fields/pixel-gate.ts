/**
 * How many pixels the process re-encodes at once, across every zip it is checking. Each zip has its own image worker
 * (image-work.ts), but a worker's heap limit does not bound its buffers, and images are costly: re-encoding a 4 MP
 * JPEG took the process from 77 to 279 MiB peak RSS (jpeg-js's blocks, the RGBA raster, the encoder's output), so
 * four zips' big images side by side would take a 768 Mi container past its limit, where the old main-thread check
 * ran one image at a time. A weighted gate: an image takes its declared pixel count (at most the whole capacity),
 * first come first served — banner-sized images run side by side, a 4 MP one alone, and nobody is overtaken.
 */
export interface PixelGate {
  /** Resolves with the release once `pixels` fit; rejects with the signal's reason if it aborts first. */
  take(pixels: number, signal?: AbortSignal): Promise<() => void>;
}

export function createPixelGate(capacity: number): PixelGate {
  let free = capacity;
  const queue: Array<{ weight: number; grant: () => void }> = [];
  const pump = () => {
    while (queue.length > 0 && queue[0]!.weight <= free) {
      const next = queue.shift()!;
      free -= next.weight;
      next.grant();
    }
  };
  return {
    take(pixels, signal) {
      const weight = Math.max(1, Math.min(capacity, Math.ceil(pixels)));
      return new Promise((resolve, reject) => {
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          free += weight;
          pump();
        };
        const entry = {
          weight,
          grant: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve(release);
          },
        };
        const onAbort = () => {
          const i = queue.indexOf(entry);
          if (i >= 0) queue.splice(i, 1);
          reject(signal!.reason);
          // The head may have been waiting behind this one.
          pump();
        };
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(entry);
        pump();
      });
    },
  };
}
