import type { CDPSession } from "puppeteer-core";
import type { DeviceProfile } from "../config.ts";
import { paintedSize } from "../fields/dimensions.ts";
import { bounded } from "../util.ts";
import { measureLayout } from "./frame-layout.ts";
import { LAYOUT_SCRIPT, type LayoutArtifact } from "./layout.ts";
import type { ProbeWorlds } from "./probe-world.ts";

export interface MeasureArtifact {
  layout?: LayoutArtifact;
  /** The creative's width when the page was laid out at a narrower viewport (responsiveness). */
  resized?: { viewportWidth: number; width: number };
  screenshotPng?: Uint8Array;
}

// Resolves after two rendered frames; the 500 ms fallback covers a page whose rendering is starved.
const TWO_FRAMES = `new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(() => r(true))); setTimeout(() => r(false), 500); })`;

/**
 * After the render watch: the creative's painted box (every frame, isolated worlds), a PNG of exactly that box at
 * device scale, and a second layout at a viewport narrower than the creative (phone width at most) to see whether it
 * follows. Every step has its own bound (`budget()`), so a hung page yields what could be measured.
 */
export async function measureCreative(
  client: CDPSession, worlds: ProbeWorlds, mainFrameId: string, profile: DeviceProfile, budget: () => number,
  slot?: { width: number; height: number },
): Promise<MeasureArtifact> {
  const out: MeasureArtifact = {};
  out.layout = await measureLayout(client, worlds, mainFrameId, budget());
  const box = out.layout?.box;
  const clip = box
    ? { x: box.x, y: box.y, width: Math.max(1, box.width), height: Math.max(1, box.height), scale: 1 }
    : { x: 0, y: 0, width: Math.min(300, profile.width), height: Math.min(250, profile.height), scale: 1 };
  const shot = await bounded(client.send("Page.captureScreenshot", { format: "png", clip, captureBeyondViewport: true }), budget(), undefined);
  if (shot) out.screenshotPng = new Uint8Array(Buffer.from(shot.data, "base64"));
  const painted = paintedSize(box ?? null);
  if (painted.width < 300) return out;
  const narrow = Math.max(200, Math.min(320, painted.width - 20));
  if (slot) {
    // A framed bundle lives in a slot of fixed size: narrowing the viewport would not reach it, narrowing the slot
    // does (as a responsive placement would).
    const set = (w: number) => worlds.evaluate(mainFrameId, `(() => { const f = document.querySelector("iframe"); if (!f) return false; f.style.width = "${w}px"; f.width = "${w}"; return true; })()`, budget());
    if (!(await set(narrow))) return out;
    const inner = (await worlds.frames()).find((f) => f.parentId === mainFrameId);
    if (inner) {
      await worlds.evaluate(inner.id, TWO_FRAMES, budget(), true);
      // What the creative lays out inside the narrower slot, before the slot clips it: a fixed 300 px creative
      // still paints 300 px (clipped), a responsive one fits.
      const l2 = await worlds.evaluate<LayoutArtifact>(inner.id, LAYOUT_SCRIPT, budget());
      if (l2) out.resized = { viewportWidth: narrow, width: paintedSize(l2.box).width };
    }
    await set(slot.width);
    return out;
  }
  const metrics = (width: number) =>
    client.send("Emulation.setDeviceMetricsOverride", { width, height: profile.height, deviceScaleFactor: profile.deviceScaleFactor, mobile: profile.isMobile });
  if (!(await bounded(metrics(narrow).then(() => true), budget(), false))) return out;
  // Two frames let resize listeners and media queries re-lay the creative out before it is measured.
  await worlds.evaluate(mainFrameId, TWO_FRAMES, budget(), true);
  const l2 = await measureLayout(client, worlds, mainFrameId, budget());
  if (l2) out.resized = { viewportWidth: narrow, width: paintedSize(l2.box).width };
  await bounded(metrics(profile.width), budget(), undefined);
  await worlds.evaluate(mainFrameId, TWO_FRAMES, budget(), true);
  return out;
}
