import type { CDPSession } from "puppeteer-core";
import type { DeviceProfile } from "../config.ts";
import { bounded } from "../util.ts";
import { measureLayout } from "./frame-layout.ts";
import { LAYOUT_SCRIPT, type LayoutArtifact, type Rect } from "./layout.ts";
import { pageFunction } from "./page-script.ts";
import type { ProbeWorlds } from "./probe-world.ts";
import { stepClock, type StepTimes } from "./step-times.ts";

export interface MeasureArtifact {
  layout?: LayoutArtifact;
  /** The creative's box when the page was laid out at a narrower viewport (responsiveness; fields/dimensions.ts). */
  resized?: ResizedLayout;
  screenshotPng?: Uint8Array;
}

export interface ResizedLayout {
  /** The narrower viewport (or slot) width, CSS px. */
  viewportWidth: number;
  /** What the creative painted there, as the layout probe measured it. */
  box: Rect | null;
}

// Resolves after two rendered frames; the 500 ms fallback covers a page whose rendering is starved.
const TWO_FRAMES = pageFunction<[fallbackMs: number]>(new URL("./page/two-frames.js", import.meta.url), "twoFrames")(500);
/** Sets the width of a framed bundle's slot (page/slot-width.js). */
const setSlotWidth = pageFunction<[width: number]>(new URL("./page/slot-width.js", import.meta.url), "setSlotWidth");

/**
 * The screenshot is of the creative's box, but the box is the creative's to choose: a 16 000 px creative would ask
 * Chromium (and our PNG decode) for a gigabyte. The clip is cut to MAX_SHOT_CSS per side and scaled down so that it
 * holds at most MAX_SHOT_PIXELS device pixels (4096x2048 at DPR 1; a 390x844 phone at DPR 3 fits whole).
 */
export const MAX_SHOT_CSS = 4096;
export const MAX_SHOT_PIXELS = 8 * 1024 * 1024;

export function screenshotClip(box: { x: number; y: number; width: number; height: number } | null | undefined, profile: { width: number; height: number; deviceScaleFactor: number }) {
  const width = box ? Math.min(MAX_SHOT_CSS, Math.max(1, box.width)) : Math.min(300, profile.width);
  const height = box ? Math.min(MAX_SHOT_CSS, Math.max(1, box.height)) : Math.min(250, profile.height);
  const pixels = width * height * profile.deviceScaleFactor ** 2;
  const scale = pixels > MAX_SHOT_PIXELS ? Math.sqrt(MAX_SHOT_PIXELS / pixels) : 1;
  return { x: box ? box.x : 0, y: box ? box.y : 0, width, height, scale };
}

/**
 * After the render watch: the creative's painted box (every frame, isolated worlds), a PNG of exactly that box at
 * device scale, and a second layout at a viewport narrower than the creative (phone width at most) to see whether it
 * follows. Every step has its own bound (`budget()`), so a hung page yields what could be measured.
 */
export async function measureCreative(
  client: CDPSession, worlds: ProbeWorlds, mainFrameId: string, profile: DeviceProfile, budget: () => number,
  slot?: { width: number; height: number },
  /** Whether the click-through follows: only then is the page put back to its width and re-laid out. */
  thenClick = true,
  /** Filled with each step's wall ms (the scan log). */
  steps?: StepTimes,
): Promise<MeasureArtifact> {
  const out: MeasureArtifact = {};
  const step = stepClock(steps);
  out.layout = await measureLayout(client, worlds, mainFrameId, budget());
  step("layout");
  const box = out.layout?.box;
  const clip = screenshotClip(box, profile);
  const shot = await bounded(client.send("Page.captureScreenshot", { format: "png", clip, captureBeyondViewport: true }), budget(), undefined);
  if (shot) out.screenshotPng = new Uint8Array(Buffer.from(shot.data, "base64"));
  step("screenshot");
  // Narrower than 300 px is mobile friendly already (fields/dimensions.ts): nothing to relayout. Viewports and slots
  // are set in whole CSS px.
  const width = box ? Math.round(box.width) : 0;
  if (width < 300) return out;
  const narrow = Math.max(200, Math.min(320, width - 20));
  if (slot) {
    // A framed bundle lives in a slot of fixed size: narrowing the viewport would not reach it, narrowing the slot
    // does (as a responsive placement would).
    const set = (w: number) => worlds.evaluate(mainFrameId, setSlotWidth(w), budget());
    if (!(await set(narrow))) return out;
    const inner = (await worlds.frames()).find((f) => f.parentId === mainFrameId);
    if (inner) {
      await worlds.evaluate(inner.id, TWO_FRAMES, budget(), true);
      // What the creative lays out inside the narrower slot, before the slot clips it: a fixed 300 px creative
      // still paints 300 px (clipped), a responsive one fits.
      const l2 = await worlds.evaluate<LayoutArtifact>(inner.id, LAYOUT_SCRIPT, budget());
      if (l2) out.resized = { viewportWidth: narrow, box: l2.box };
    }
    if (thenClick) await set(slot.width);
    return out;
  }
  const metrics = (width: number) =>
    client.send("Emulation.setDeviceMetricsOverride", { width, height: profile.height, deviceScaleFactor: profile.deviceScaleFactor, mobile: profile.isMobile });
  if (!(await bounded(metrics(narrow).then(() => true), budget(), false))) return out;
  // Two frames let resize listeners and media queries re-lay the creative out before it is measured.
  await worlds.evaluate(mainFrameId, TWO_FRAMES, budget(), true);
  step("narrow");
  const l2 = await measureLayout(client, worlds, mainFrameId, budget());
  step("narrow_layout");
  if (l2) out.resized = { viewportWidth: narrow, box: l2.box };
  if (!thenClick) return out;
  await bounded(metrics(profile.width), budget(), undefined);
  await worlds.evaluate(mainFrameId, TWO_FRAMES, budget(), true);
  return out;
}
