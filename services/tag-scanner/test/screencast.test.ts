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
});
