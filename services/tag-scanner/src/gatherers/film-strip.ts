import type { Gatherer } from "./gatherer.ts";
import { captureOrder, type ScreencastFrame, type gatherScreencast } from "./screencast.ts";

/**
 * The film strip of the render (issue 26): a few frames picked across the animation, from the screencast frames the
 * scan already receives (changed frames only, half the viewport's resolution, JPEG as Chromium encoded them: nothing
 * is decoded or re-encoded here). While the creative renders, frames are kept at least `gap` ms apart, up to KEEP;
 * when that fills, every other one is dropped and the gap doubled, so memory stays bounded (KEEP half-resolution
 * JPEGs) however long the creative moves. The last changed frame is always kept: it is the state the ad rests in.
 * `pick()` then chooses up to STRIP_FRAMES spread evenly across the kept ones' times, first and last included.
 */
export interface FilmStripArtifact {
  /** Kept frames: JPEG bytes and capture time (epoch ms, the screencast's clock). */
  kept: Array<{ at: number; jpeg: Buffer }>;
}

export const STRIP_FRAMES = 8;
const KEEP = 64;
const FIRST_GAP_MS = 100;
/** A frame larger than this (a hostile 4K viewport) is not kept. */
const MAX_FRAME_BYTES = 2 * 1024 * 1024;

export function gatherFilmStrip(screencast: ReturnType<typeof gatherScreencast>) {
  const artifact: FilmStripArtifact = { kept: [] };
  let open = false;
  let gap = FIRST_GAP_MS;
  let last: { at: number; data: string } | undefined;
  // The screencast starts with the render, so its first frame is the page before the creative drew anything (report.ts
  // takes the first pixel change as pixelChanges[1] for the same reason): not a frame of the creative. Kept, it put a
  // blank viewport at 0 ms first in every strip, and two frames in the strip of a creative that does not move.
  let blankSeen = false;
  let prevData = "";
  // Frames may arrive out of capture order (screencast.ts captureOrder): taken in arrival order, a blank page that
  // arrived after the creative's first frame was kept as the strip's first frame (a clean-clone CI's film-strip-render
  // read a frame with none of the ad in it). So they are taken in capture order, and whether a frame changed is
  // decided against the one captured before it.
  const ordered = captureOrder((f: { at: number; data: string }) => {
    if (f.data === prevData) return;
    prevData = f.data;
    if (!blankSeen) {
      blankSeen = true;
      return;
    }
    last = f;
    const prev = artifact.kept[artifact.kept.length - 1];
    if (prev && f.at - prev.at < gap) return;
    const jpeg = Buffer.from(f.data, "base64");
    if (jpeg.length > MAX_FRAME_BYTES) return;
    artifact.kept.push({ at: f.at, jpeg });
    if (artifact.kept.length >= KEEP) {
      artifact.kept = artifact.kept.filter((_, i) => i % 2 === 0);
      gap *= 2;
    }
  });
  screencast.onFrame((f: ScreencastFrame) => {
    // A frame shown again (screencast.ts) was taken when it came: the strip decides changes itself.
    if (!open || f.again) return;
    ordered.push({ at: f.capturedAt, data: f.data });
  });
  return {
    name: "film-strip",
    artifact,
    async start() {},
    beginRender() { open = true; },
    endRender() {
      open = false;
      ordered.flush();
      // The resting state: the last changed frame, if the sampling skipped it.
      const tail = artifact.kept[artifact.kept.length - 1];
      if (last && (!tail || tail.at < last.at)) {
        const jpeg = Buffer.from(last.data, "base64");
        if (jpeg.length <= MAX_FRAME_BYTES) artifact.kept.push({ at: last.at, jpeg });
      }
      last = undefined;
    },
    stop() { open = false; },
  } satisfies Gatherer<FilmStripArtifact> & Record<string, unknown>;
}

/** Up to `n` kept frames spread evenly over their times, the first and the last included, in time order. */
export function pickFilmStrip<T extends { at: number }>(kept: readonly T[], n = STRIP_FRAMES): T[] {
  if (kept.length <= n) return [...kept];
  const first = kept[0]!.at;
  const span = kept[kept.length - 1]!.at - first;
  const out: T[] = [];
  let from = 0;
  for (let k = 0; k < n; k++) {
    const target = first + (span * k) / (n - 1);
    // The kept frame nearest the target, never one already taken.
    let best = from;
    for (let i = from; i < kept.length - (n - 1 - k); i++) {
      if (Math.abs(kept[i]!.at - target) < Math.abs(kept[best]!.at - target)) best = i;
    }
    out.push(kept[best]!);
    from = best + 1;
  }
  return out;
}
