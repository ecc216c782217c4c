import { EventEmitter } from "node:events";
import type { CDPSession } from "puppeteer-core";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { gatherFlashes } from "../src/gatherers/flashes.ts";
import { gatherScreencast } from "../src/gatherers/screencast.ts";

// The photosensitivity capture when screencast frames arrive out of capture order (they are encoded on an unsequenced
// pool): a flash's return to the picture before it must still reach the analyzer, in capture order.

const VIEWPORT = { width: 64, height: 64 };
const jpeg = async (v: number) =>
  (await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: v, g: v, b: v } } }).jpeg({ quality: 90 }).toBuffer()).toString("base64");

function fakeSession() {
  const bus = new EventEmitter();
  const session = { on: bus.on.bind(bus), off: bus.off.bind(bus), send: async () => ({}) } as unknown as CDPSession;
  const frame = (data: string, atMs: number) => bus.emit("Page.screencastFrame", { data, sessionId: 1, metadata: { timestamp: atMs / 1000 } });
  return { session, frame };
}

describe("flash frames out of capture order", () => {
  it("dark, light, dark received as dark, dark, light: the analyzer sees both transitions, in capture order", async () => {
    const [dark, light] = await Promise.all([jpeg(10), jpeg(245)]);
    const run = async (order: Array<[string, number]>) => {
      const { session, frame } = fakeSession();
      const screencast = gatherScreencast(session);
      const flashes = gatherFlashes(screencast);
      flashes.beginRender({ viewport: VIEWPORT } as Parameters<typeof flashes.beginRender>[0]);
      for (const [data, at] of order) frame(data, at);
      await flashes.endRender();
      return flashes.artifact;
    };
    const t = 2_000_000;
    const inOrder = await run([[dark, t], [light, t + 100], [dark, t + 150]]);
    const late = await run([[dark, t], [dark, t + 150], [light, t + 100]]);
    expect(inOrder.result?.transitions).toEqual([t + 100, t + 150]);
    expect(late.result?.transitions).toEqual(inOrder.result?.transitions);
    expect(late.decoded).toBe(3);
    expect([late.firstAt, late.lastAt]).toEqual([t, t + 150]);
  });
});
