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
  screenshotPng?: Uint8Array;
}

/** The creative's box when the page was laid out at a narrower viewport (responsiveness; fields/dimensions.ts). */
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
 * Whether the capture must reach beyond the viewport. Chromium then resizes the view for the capture and back, which
 * fires a `resize` event in the creative (its listeners run, a responsive creative lays out again) after the render
 * was measured: so only when the clip is not inside the viewport. The clip is in document coordinates either way.
 */
export function captureBeyondViewport(
  clip: { x: number; y: number; width: number; height: number },
  layout: Pick<LayoutArtifact, "scroll" | "viewport"> | undefined,
): boolean {
  if (!layout) return true;
  const x = clip.x - layout.scroll.x, y = clip.y - layout.scroll.y;
  return !(x >= 0 && y >= 0 && x + clip.width <= layout.viewport.width && y + clip.height <= layout.viewport.height);
}

/**
 * After the render watch: the creative's painted box (every frame, isolated worlds) and a PNG of exactly that box at
 * device scale. Every step has its own bound (`budget()`), so a hung page yields what could be measured. `beside`
 * starts once the screenshot is in, not waited for: renderer work that changes nothing the page shows (axe-core's
 * load into the top frame's isolated world), beside what the scan does between its phases.
 */
export async function measureCreative(
  client: CDPSession, worlds: ProbeWorlds, mainFrameId: string, profile: DeviceProfile, budget: () => number,
  /** Filled with each step's wall ms (the scan log). */
  steps?: StepTimes,
  beside?: () => unknown,
): Promise<MeasureArtifact> {
  const out: MeasureArtifact = {};
  const step = stepClock(steps);
  out.layout = await measureLayout(client, worlds, mainFrameId, budget());
  step("layout");
  const clip = screenshotClip(out.layout?.box, profile);
  const beyond = captureBeyondViewport(clip, out.layout);
  const shot = await bounded(client.send("Page.captureScreenshot", { format: "png", clip, captureBeyondViewport: beyond }), budget(), undefined);
  step("screenshot");
  // Once the capture answered: started beside it, axe's compile held the capture's frame on a loaded machine (truth
  // row border-baked-in-png, 4 scans in flight: no screenshot within its step). Not waited for here (its caller does).
  beside?.();
  if (shot) out.screenshotPng = new Uint8Array(Buffer.from(shot.data, "base64"));
  return out;
}

/**
 * Responsiveness: a second layout at a viewport narrower than the creative (phone width at most) to see whether it
 * follows — after everything that reads the page as shown (layout, screenshot, the accessibility checks), so that
 * the page is narrowed once and put back only when something after needs it (`putBack`: the click-through, the pause
 * control). A creative narrower than 300 px is mobile friendly already (fields/dimensions.ts): nothing to relayout.
 */
export async function measureResized(
  client: CDPSession, worlds: ProbeWorlds, mainFrameId: string, profile: DeviceProfile, budget: () => number,
  box: Rect | null | undefined,
  slot: { width: number; height: number } | undefined,
  putBack: boolean,
  steps?: StepTimes,
): Promise<ResizedLayout | undefined> {
  const step = stepClock(steps);
  // Viewports and slots are set in whole CSS px.
  const width = box ? Math.round(box.width) : 0;
  if (width < 300) return undefined;
  const narrow = Math.max(200, Math.min(320, width - 20));
  if (slot) {
    // A framed bundle lives in a slot of fixed size: narrowing the viewport would not reach it, narrowing the slot
    // does (as a responsive placement would).
    const set = (w: number) => worlds.evaluate(mainFrameId, setSlotWidth(w), budget());
    if (!(await set(narrow))) return undefined;
    const inner = (await worlds.frames()).find((f) => f.parentId === mainFrameId);
    let resized: ResizedLayout | undefined;
    if (inner) {
      await worlds.evaluate(inner.id, TWO_FRAMES, budget(), true);
      // What the creative lays out inside the narrower slot, before the slot clips it: a fixed 300 px creative
      // still paints 300 px (clipped), a responsive one fits.
      const l2 = await worlds.evaluate<LayoutArtifact>(inner.id, LAYOUT_SCRIPT, budget());
      if (l2) resized = { viewportWidth: narrow, box: l2.box };
    }
    if (putBack) {
      await set(slot.width);
      if (inner) await worlds.evaluate(inner.id, TWO_FRAMES, budget(), true);
    }
    return resized;
  }
  const metrics = (width: number) =>
    client.send("Emulation.setDeviceMetricsOverride", { width, height: profile.height, deviceScaleFactor: profile.deviceScaleFactor, mobile: profile.isMobile });
  if (!(await bounded(metrics(narrow).then(() => true), budget(), false))) return undefined;
  // Two frames let resize listeners and media queries re-lay the creative out before it is measured.
  await worlds.evaluate(mainFrameId, TWO_FRAMES, budget(), true);
  step("narrow");
  const l2 = await measureLayout(client, worlds, mainFrameId, budget());
  step("narrow_layout");
  if (putBack) {
    await bounded(metrics(profile.width), budget(), undefined);
    await worlds.evaluate(mainFrameId, TWO_FRAMES, budget(), true);
    step("width_back");
  }
  return l2 ? { viewportWidth: narrow, box: l2.box } : undefined;
}
