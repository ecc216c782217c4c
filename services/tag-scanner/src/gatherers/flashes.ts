import { createFlashAnalyzer, type FlashAnalyzer, type FlashResult } from "@cva/imaging";
import sharp from "sharp";
import type { Gatherer, RenderStart } from "./gatherer.ts";
import { captureOrder, IN_FLIGHT_LIMIT, type ScreencastFrame, type gatherScreencast } from "./screencast.ts";

/**
 * Photosensitivity frames: every changed screencast frame of the render, reduced to a grid of 8x8 CSS px cells and fed
 * to the WCAG flash analyzer (@cva/imaging flash.ts). The screencast sends a frame only when the compositor drew
 * something new, up to the display rate (60 Hz), so a static creative costs one or two decodes and a moving one is
 * sampled at every change: a 10 Hz flash (20 transitions a second, 50 ms per state) arrives as 20 frames a second.
 * Decoding is libjpeg-turbo's (sharp), scaled while it decodes (DCT scaling, ~block averages) on libuv's thread pool,
 * never on the event loop every scan's CDP events arrive on.
 *
 * Chromium's screencast keeps only a few frames in flight: a frame captured while earlier ones still wait for our ack
 * is dropped, and a dropped state could hide a flash. We ack each frame on arrival, so the frames in flight at any
 * moment are known from each received frame's capture and arrival times: wherever IN_FLIGHT_LIMIT were in flight at
 * once, a frame captured then was dropped if there was one, and that time is "blind". A verdict of no flash risk is given only when no
 * blind time fell while the creative was changing (see `fields/accessibility.ts`).
 */
export interface FlashArtifact {
  /** The analyzer's result (undefined when the render never began). */
  result?: FlashResult;
  /** Changed frames received, decoded, and left undecoded (over budget, backlog, or undecodable). */
  frames: number;
  decoded: number;
  skipped: number;
  /** Epoch ms of the first and last changed frame's capture (0 when none). */
  firstAt: number;
  lastAt: number;
  /** Epoch-ms intervals in which frames may have been missed (late delivery, skipped decodes). */
  blind: Array<[number, number]>;
  /** Longest delivery delay seen, ms. */
  maxDelayMs: number;
  /** The capture's cell size, CSS px. */
  cellCss: number;
}

const CELL_CSS = 8;
/** Budgets: at most this many decodes per scan (60 fps for 50 s), and this many waiting at once. */
const MAX_DECODES = 3_000;
const MAX_BACKLOG = 30;

export function gatherFlashes(screencast: ReturnType<typeof gatherScreencast>) {
  const artifact: FlashArtifact = { frames: 0, decoded: 0, skipped: 0, firstAt: 0, lastAt: 0, blind: [], maxDelayMs: 0, cellCss: CELL_CSS };
  let analyzer: FlashAnalyzer | undefined;
  let cols = 0, rows = 0;
  let open = false;
  let backlog = 0;
  let chain: Promise<void> = Promise.resolve();
  let firstLocal = 0;
  /** Arrival times (epoch ms, = our ack) of the frames received so far, newest last (the last IN_FLIGHT_LIMIT kept). */
  const arrivals: number[] = [];
  let prevCapture = 0;
  /** Decoded frames, to the analyzer in capture order (screencast.ts captureOrder). */
  const ordered = captureOrder((f: { at: number; px: Buffer; c: number; r: number }) => analyzer?.push(f.at, f.px, f.c, f.r));

  const blind = (from: number, to: number) => {
    const last = artifact.blind[artifact.blind.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else if (artifact.blind.length < 1_000) artifact.blind.push([from, to]);
  };

  const arrive = (f: ScreencastFrame) => {
    const delay = f.receivedAt - f.capturedAt;
    if (delay > artifact.maxDelayMs) artifact.maxDelayMs = delay;
    // Between the previous frame's capture and this one's, the frames in flight were the previous ones not yet
    // acked: while IN_FLIGHT_LIMIT of them were, a capture there was dropped.
    if (arrivals.length >= IN_FLIGHT_LIMIT) {
      const limitUntil = arrivals[arrivals.length - IN_FLIGHT_LIMIT]!;
      const to = Math.min(f.capturedAt, limitUntil);
      if (to > prevCapture) blind(prevCapture, to);
    }
    arrivals.push(f.receivedAt);
    if (arrivals.length > IN_FLIGHT_LIMIT) arrivals.shift();
    prevCapture = Math.max(prevCapture, f.capturedAt);
  };

  screencast.onFrame((f: ScreencastFrame) => {
    if (!open || !analyzer) return;
    // A frame shown again (screencast.ts) is not an arrival: only its decode is owed.
    if (!f.again) arrive(f);
    if (!f.changed) return;
    artifact.frames++;
    if (!artifact.firstAt) { artifact.firstAt = f.capturedAt; firstLocal = f.receivedAt; }
    artifact.firstAt = Math.min(artifact.firstAt, f.capturedAt);
    artifact.lastAt = Math.max(artifact.lastAt, f.capturedAt);
    if (artifact.decoded + backlog >= MAX_DECODES || backlog >= MAX_BACKLOG) {
      artifact.skipped++;
      blind(f.capturedAt, f.capturedAt + 1);
      return;
    }
    backlog++;
    const an = analyzer, c = cols, r = rows;
    const decoding = sharp(Buffer.from(f.data, "base64"), { limitInputPixels: 16_000_000, sequentialRead: true })
      .resize(c, r, { fit: "fill" }).removeAlpha().raw().toBuffer()
      .then((px) => px, () => undefined);
    // Decodes run in parallel; frames reach the analyzer in capture order (the reorder buffer).
    chain = chain.then(async () => {
      const px = await decoding;
      backlog--;
      if (!px || px.length !== c * r * 3) { artifact.skipped++; blind(f.capturedAt, f.capturedAt + 1); return; }
      artifact.decoded++;
      if (an === analyzer) {
        ordered.push({ at: f.capturedAt, px, c, r });
      }
    });
  });

  return {
    name: "flashes",
    artifact,
    async start() {},
    beginRender({ viewport }: RenderStart) {
      analyzer = createFlashAnalyzer({ viewport });
      cols = Math.max(1, Math.ceil(viewport.width / CELL_CSS));
      rows = Math.max(1, Math.ceil(viewport.height / CELL_CSS));
      open = true;
    },
    /**
     * Keeps the capture of an endless creative running (its watch ends as soon as it is proven endless, maybe before
     * a whole second of it was seen) until `ms` have passed since its first changed frame and the last `cleanMs` held
     * no blind time — on a starved machine frames arrive late and may be missing, and a clean second of the loop is
     * what judges it — bounded by `maxMs` and `deadline`.
     */
    async cover(opts: { ms: number; cleanMs: number; maxMs: number; deadline: number; signal?: AbortSignal }) {
      const end = Math.min(opts.deadline, Date.now() + opts.maxMs);
      const lastBlind = () => artifact.blind[artifact.blind.length - 1]?.[1] ?? 0;
      while (!opts.signal?.aborted && open && Date.now() < end) {
        const now = Date.now();
        if (!firstLocal && now - end + opts.maxMs > opts.ms) break; // nothing moved in that time: nothing to cover
        if (firstLocal && now - firstLocal >= opts.ms && now - lastBlind() >= opts.cleanMs) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async endRender() {
      open = false;
      // Frames already received are decoded (bounded: a backlog of 30 small decodes takes tens of ms).
      await Promise.race([chain, new Promise((r) => setTimeout(r, 3_000).unref())]);
      ordered.flush();
      if (analyzer) artifact.result = analyzer.result();
    },
    stop() {
      open = false;
    },
  } satisfies Gatherer<FlashArtifact> & Record<string, unknown>;
}
