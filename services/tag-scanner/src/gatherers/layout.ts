import { pageFunction } from "./page-script.ts";

// The creative's box in a document (page/layout.js, run in an isolated world so that the creative's own overrides of
// DOM methods are not seen): the union of what paints, each part clipped as the browser clips it, in document
// coordinates; the largest clickable element (the click-through target) and the ad.size meta. What counts as painted
// and what does not (trackers, hidden and clipped things) is told beside the code.

export interface Rect { x: number; y: number; width: number; height: number }

export interface LayoutArtifact {
  /** Everything that paints in this document; a frame element counts as its whole box. */
  box: Rect | null;
  /**
   * Same, but a frame element (iframe, frame, embed, object hosting a document) counts only by what this document
   * paints for it (its background, border, outline, shadow), not its content box. The caller replaces each frame by
   * what the frame's own document paints (this probe run in that frame) and falls back to `box`.
   */
  ownBox: Rect | null;
  /** window.scrollX/scrollY: the boxes are in document coordinates, CDP box models in viewport coordinates. */
  scroll: { x: number; y: number };
  /**
   * Centre of the largest link / clickable element inside the box, in viewport coordinates. From one document's probe
   * a frame element counts as one clickable; measureLayout (frame-layout.ts) replaces it by the clickables inside.
   */
  click: { x: number; y: number } | null;
  /**
   * The largest link / clickable element of this document alone, frame elements left out, in viewport coordinates
   * and clipped to the box: what frame-layout.ts weighs against the clickables inside child frames.
   */
  clickTarget?: Rect | null;
  viewport: { width: number; height: number };
  /** <meta name="ad.size" content="width=300,height=250"> of the top document, when present. */
  adSizeMeta: { width: number; height: number } | null;
}

/** The probe's expression (page/layout.js), evaluated in a frame's isolated world. */
export const LAYOUT_SCRIPT = pageFunction(new URL("./page/layout.js", import.meta.url), "layoutProbe")();
