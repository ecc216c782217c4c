import { EventEmitter } from "node:events";
import type { CDPSession } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { gatherScreencast } from "../src/gatherers/screencast.ts";

// The pixel-change timeline from Chromium's screencast frames, fed as a CDP session delivers them. Frames are encoded on
// an unsequenced pool, so they may arrive out of capture order; the timeline is in capture order all the same, because
// its first entries (the blank page, then the creative's first frame) are what time_to_visual_start reads.

function fakeSession() {
  const bus = new EventEmitter();
  const session = { on: bus.on.bind(bus), off: bus.off.bind(bus), send: async () => ({}) } as unknown as CDPSession;
  const frame = (data: string, atMs: number) =>
    bus.emit("Page.screencastFrame", { data, sessionId: 1, metadata: { timestamp: atMs / 1000 } });
  return { session, frame };
}

describe("screencast timeline", () => {
  it("changes are in capture order when frames arrive out of it", () => {
    const { session, frame } = fakeSession();
    const s = gatherScreencast(session);
    frame("creative-1", 1_100); // arrives before the blank page captured 100 ms earlier
    frame("blank", 1_000);
    frame("creative-2", 1_300);
    frame("creative-2", 1_350); // the same bytes: no change
    frame("creative-3", 1_600);
    expect(s.artifact.changes).toEqual([1_000, 1_100, 1_300, 1_600]);
    expect(s.artifact.frames).toBe(5);
  });

  it("a return to the picture before is a change, whichever of the three frames arrives late", () => {
    // Captured dark (1 000), light (1 100), dark again (1 150): two changes after the first frame, in either arrival.
    const run = (order: Array<[string, number]>) => {
      const { session, frame } = fakeSession();
      const s = gatherScreencast(session);
      const seen: Array<[number, boolean, boolean]> = [];
      s.onFrame((f) => seen.push([f.capturedAt, f.changed, f.again === true]));
      for (const [data, at] of order) frame(data, at);
      return { changes: s.artifact.changes, seen };
    };
    // The light frame arrives first: the last dark equals the frame received before it, but not the one captured before.
    const early = run([["light", 1_100], ["dark", 1_000], ["dark", 1_150]]);
    expect(early.changes).toEqual([1_000, 1_100, 1_150]);
    expect(early.seen).toEqual([[1_100, true, false], [1_000, true, false], [1_150, true, false]]);
    // The light frame arrives last: the dark after it was judged unchanged when it came, and is shown again as a change.
    const late = run([["dark", 1_000], ["dark", 1_150], ["light", 1_100]]);
    expect(late.changes).toEqual([1_000, 1_100, 1_150]);
    expect(late.seen).toEqual([[1_000, true, false], [1_150, false, false], [1_100, true, false], [1_150, true, true]]);
    // In order, nothing changes from before: an unchanged frame is not a change.
    const inOrder = run([["dark", 1_000], ["light", 1_100], ["light", 1_120], ["dark", 1_150]]);
    expect(inOrder.changes).toEqual([1_000, 1_100, 1_150]);
  });
});
