import type { CDPSession } from "puppeteer-core";
import { bounded } from "../util.ts";
import { LAYOUT_SCRIPT, type LayoutArtifact, type Rect } from "./layout.ts";
import type { ProbeWorlds } from "./probe-world.ts";

const MAX_FRAMES = 20;

/** The probe's answer with the box that leaves frame elements out, and the document's scroll offset. */
type FrameLayout = LayoutArtifact & { ownBox?: Rect | null; scroll?: { x: number; y: number } };

export type Edges = { l: number; t: number; r: number; b: number };
const edges = (r: Rect): Edges => ({ l: r.x, t: r.y, r: r.x + r.width, b: r.y + r.height });
const rect = (e: Edges): Rect => ({ x: e.l, y: e.t, width: e.r - e.l, height: e.b - e.t });
const intersect = (a: Edges, b: Edges): Edges | undefined => {
  const e = { l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) };
  return e.r - e.l >= 1 && e.b - e.t >= 1 ? e : undefined;
};
const union = (a: Edges | undefined, b: Edges): Edges =>
  a ? { l: Math.min(a.l, b.l), t: Math.min(a.t, b.t), r: Math.max(a.r, b.r), b: Math.max(a.b, b.b) } : b;

/**
 * Where a user would click (the same rule as the probe's, across frames): the centre of the largest candidate's part
 * inside the creative's box, else the box's centre. Candidates and the answer are in viewport coordinates, the box
 * in document coordinates.
 */
export function clickPoint(targets: readonly Edges[], box: Rect, scroll: { x: number; y: number }): { x: number; y: number } {
  const within: Edges = { l: box.x - scroll.x, t: box.y - scroll.y, r: box.x + box.width - scroll.x, b: box.y + box.height - scroll.y };
  let best: Edges | undefined;
  let bestArea = 0;
  for (const t of targets) {
    const e = intersect(t, within);
    const area = e ? (e.r - e.l) * (e.b - e.t) : 0;
    if (e && area > bestArea) { best = e; bestArea = area; }
  }
  const c = best ?? within;
  return { x: (c.l + c.r) / 2, y: (c.t + c.b) / 2 };
}

/**
 * The creative's painted box across frames. The layout probe runs in the top document's isolated world and in each
 * child frame's; a frame element is then replaced by what its document paints inside it (translated into the top
 * document and clipped to the frame's content box), so a 300x600 iframe whose ad paints 300x250 measures 300x250 and
 * an ad written into a friendly or cross-origin iframe is measured by its pixels. A frame whose document cannot be
 * probed (gone, hung) counts as its element's box, as before. The click point is chosen the same way: the largest
 * link / clickable element of any frame's document (each frame's probe reads its own, in our isolated world), placed
 * in the viewport by its frame's content box; a frame counts as one clickable only when nothing inside it shows as
 * one (cross-origin out of reach, or handlers a script attached).
 */
export async function measureLayout(client: CDPSession, worlds: ProbeWorlds, mainFrameId: string, stepMs: number): Promise<LayoutArtifact | undefined> {
  const top = await worlds.evaluate<FrameLayout>(mainFrameId, LAYOUT_SCRIPT, stepMs);
  if (!top) return undefined;
  const frames = (await worlds.frames()).filter((f) => f.id !== mainFrameId).slice(0, MAX_FRAMES);
  if (frames.length === 0 || top.ownBox === undefined) return top;
  const deadline = Date.now() + stepMs;
  const parentOf = new Map(frames.map((f) => [f.id, f.parentId]));
  const scroll = top.scroll ?? { x: 0, y: 0 };
  const visibleFrames = top.box ? edges(top.box) : undefined;
  let box: Edges | undefined = top.ownBox ? edges(top.ownBox) : undefined;
  // Click-through candidates in viewport coordinates: this document's own largest clickable, the largest inside each
  // frame, and a frame's painted area as a stand-in when nothing inside it (or its sub-frames) shows as clickable.
  const targets: Edges[] = top.clickTarget ? [edges(top.clickTarget)] : [];
  const standIns = new Map<string, Edges>();
  const withTarget = new Set<string>();
  await bounded(client.send("DOM.enable"), 2_000, undefined);
  for (const f of frames) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const owner = await bounded(client.send("DOM.getFrameOwner", { frameId: f.id }), Math.min(left, 2_000), undefined);
    const model = owner ? await bounded(client.send("DOM.getBoxModel", { backendNodeId: owner.backendNodeId }), Math.min(left, 2_000), undefined) : undefined;
    if (!model) continue; // display:none or detached: shows nothing
    const q = model.model.content;
    // Viewport coordinates of the frame's content box, then top-document coordinates.
    const content: Edges = {
      l: Math.min(q[0]!, q[6]!) + scroll.x, t: Math.min(q[1]!, q[3]!) + scroll.y,
      r: Math.max(q[2]!, q[4]!) + scroll.x, b: Math.max(q[5]!, q[7]!) + scroll.y,
    };
    const shown = visibleFrames ? intersect(content, visibleFrames) : undefined;
    if (!shown) continue; // hidden, transparent or off-screen frame element
    const inner = await worlds.evaluate<FrameLayout>(f.id, LAYOUT_SCRIPT, Math.min(left, stepMs));
    const toViewport = (e: Edges): Edges => ({ l: e.l - scroll.x, t: e.t - scroll.y, r: e.r - scroll.x, b: e.b - scroll.y });
    if (!inner) {
      box = union(box, shown);
      standIns.set(f.id, toViewport(shown));
      continue;
    }
    // The frame's own clickable, from its viewport to ours (the content box's viewport position), cut to what shows.
    if (inner.clickTarget) {
      const c = inner.clickTarget;
      const vx = content.l - scroll.x, vy = content.t - scroll.y;
      const cut = intersect({ l: c.x + vx, t: c.y + vy, r: c.x + c.width + vx, b: c.y + c.height + vy }, toViewport(shown));
      if (cut) {
        targets.push(cut);
        for (let id: string | undefined = f.id; id && id !== mainFrameId && !withTarget.has(id); id = parentOf.get(id)) withTarget.add(id);
      }
    }
    const paint = inner.ownBox ?? inner.box;
    if (!paint) continue;
    const s = inner.scroll ?? { x: 0, y: 0 };
    const placed = intersect(
      { l: paint.x - s.x + content.l, t: paint.y - s.y + content.t, r: paint.x + paint.width - s.x + content.l, b: paint.y + paint.height - s.y + content.t },
      shown,
    );
    if (placed) {
      box = union(box, placed);
      standIns.set(f.id, toViewport(placed));
    }
  }
  for (const [id, e] of standIns) if (!withTarget.has(id)) targets.push(e);
  const final = box ? rect(box) : null;
  return { ...top, box: final, click: final ? clickPoint(targets, final, scroll) : top.click };
}
