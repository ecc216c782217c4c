import type { CDPSession, Protocol } from "puppeteer-core";
import type { Gatherer, RenderStart } from "./gatherer.ts";

/**
 * Pixel-change timeline from the CDP screencast. Chromium only emits a screencast frame when the compositor produced
 * new damage, and encodes identical pixels to identical bytes, so "frame bytes differ from the previous frame" is a
 * cheap, exact "pixels changed" signal without decoding anything. The artifact is the list of change times. It runs
 * while the creative renders (`beginRender` to `endRender`), not on the prepared page nor during the click-through.
 */
export interface ScreencastArtifact {
  /** Wall-clock epoch milliseconds of every frame whose pixels differ from the previous frame's, in capture order. */
  changes: number[];
  frames: number;
  /**
   * How far behind the page the capture was at the last change: that frame's arrival less its timestamp, ms. Chromium
   * sends the next frame only once the last was acknowledged, so a capture this far behind drops whatever the page
   * drew and finished meanwhile (see scheduled-motion-end.ts).
   */
  lastChangeLagMs: number;
}

/**
 * A frame as it arrived (and was acked): its JPEG (base64), capture time (epoch ms), local arrival time (Date.now()),
 * and whether its pixels differ from the frame received or captured before it.
 */
export interface ScreencastFrame {
  data: string;
  capturedAt: number;
  receivedAt: number;
  changed: boolean;
  /** A frame received earlier, shown again because a frame received after it showed it was a change (see onFrame). */
  again?: true;
}

/**
 * Frames in flight (captured, not yet acked) at which Chromium drops the next capture: content/browser/devtools/
 * protocol/page_handler.cc admits a frame while `frames_in_flight_ > kMaxScreencastFramesInFlight` (2) is false, so
 * a third unacked frame is still sent and a capture with three in flight is dropped.
 */
export const IN_FLIGHT_LIMIT = 3;

/**
 * A reorder buffer by capture time for a reader of the frames: frames are encoded on an unsequenced pool, so two
 * captured close together can arrive in either order (at most IN_FLIGHT_LIMIT - 1 late in a row). Items go to `take`
 * in capture order once IN_FLIGHT_LIMIT later ones have come, the rest on `flush`.
 */
export function captureOrder<T extends { at: number }>(take: (item: T) => void) {
  const waiting: T[] = [];
  const release = (all: boolean) => {
    waiting.sort((x, y) => x.at - y.at);
    while (waiting.length > (all ? 0 : IN_FLIGHT_LIMIT)) take(waiting.shift()!);
  };
  return {
    push(item: T) { waiting.push(item); release(false); },
    flush() { release(true); },
  };
}

export function gatherScreencast(client: CDPSession) {
  const artifact: ScreencastArtifact = { changes: [], frames: 0, lastChangeLagMs: 0 };
  // Readers of every frame (the photosensitivity gatherer): called synchronously, they copy what they keep.
  const readers: Array<(f: ScreencastFrame) => void> = [];
  let prev = "";
  /** The last frames received: capture time, bytes, and whether each counted as a change. */
  const recent: Array<{ at: number; data: string; changed: boolean }> = [];
  let lastChangeLocal = 0;
  const localChanges: number[] = [];
  const noteChange = (at: number) => {
    // In capture order: the timeline's first and last changes are what time_to_visual_start and animation_duration read.
    if (artifact.changes.length < 10_000) {
      let i = artifact.changes.length;
      while (i > 0 && artifact.changes[i - 1]! > at) i--;
      artifact.changes.splice(i, 0, at);
    }
    lastChangeLocal = Date.now();
    artifact.lastChangeLagMs = Math.max(0, Math.round(lastChangeLocal - at));
    if (localChanges.length < 10_000) localChanges.push(lastChangeLocal);
  };
  const deliver = (frame: ScreencastFrame) => { for (const r of readers) r(frame); };
  const onFrame = (e: Protocol.Page.ScreencastFrameEvent) => {
    client.send("Page.screencastFrameAck", { sessionId: e.sessionId }).catch(() => {});
    artifact.frames++;
    const at = e.metadata.timestamp ? e.metadata.timestamp * 1000 : Date.now();
    // Frames may arrive out of capture order (IN_FLIGHT_LIMIT). A frame is a change when it differs from the one
    // received before it or from the one captured before it: captured dark, light, dark and received light, dark, dark,
    // the last dark equals the frame received before it, yet light came before it on the screen (a flash's return).
    let pred: (typeof recent)[number] | undefined, succ: (typeof recent)[number] | undefined;
    for (const r of recent) {
      if (r.at < at && (pred === undefined || r.at > pred.at)) pred = r;
      if (r.at > at && (succ === undefined || r.at < succ.at)) succ = r;
    }
    const changed = e.data !== prev || (pred !== undefined && pred.data !== e.data);
    prev = e.data;
    recent.push({ at, data: e.data, changed });
    if (recent.length > IN_FLIGHT_LIMIT + 1) recent.shift();
    if (changed) noteChange(at);
    const receivedAt = Date.now();
    if (readers.length > 0) deliver({ data: e.data, capturedAt: at, receivedAt, changed });
    // Received after the frame captured next (captured dark, light, dark; received dark, dark, light): that frame,
    // judged unchanged when it came, was a change on the screen. It is counted now, and shown to the readers again.
    if (succ && !succ.changed && succ.data !== e.data) {
      succ.changed = true;
      noteChange(succ.at);
      if (readers.length > 0) deliver({ data: succ.data, capturedAt: succ.at, receivedAt, changed: true, again: true });
    }
  };
  client.on("Page.screencastFrame", onFrame);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    client.off("Page.screencastFrame", onFrame);
    await client.send("Page.stopScreencast").catch(() => {});
  };
  return {
    name: "screencast",
    artifact,
    async start() {},
    async beginRender({ viewport }: RenderStart) {
      // Half resolution: changes are still seen, encoding costs a quarter.
      await client.send("Page.startScreencast", {
        format: "jpeg", quality: 60, everyNthFrame: 1,
        maxWidth: Math.ceil(viewport.width / 2), maxHeight: Math.ceil(viewport.height / 2),
      });
    },
    /** Adds a reader of every frame (see ScreencastFrame). */
    onFrame: (r: (f: ScreencastFrame) => void) => { readers.push(r); },
    /** Local Date.now() of every pixel change. */
    localChanges: () => localChanges,
    /** Local Date.now() of the last pixel change (0 if none yet). */
    lastChange: () => lastChangeLocal,
    endRender: stop,
    stop,
  } satisfies Gatherer<ScreencastArtifact> & Record<string, unknown>;
}
