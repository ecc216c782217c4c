import type { ClickPoint, FilmStripFrame } from "@cva/contracts";
import { arr, bool, int, num, obj, orEmpty } from "./schema.ts";
import { imageSchema, imageView } from "./shared.ts";

// v3 ad tag (issue 26): the film strip of the render with each frame's time, and where the click-through clicked.

export const filmStripSchema = arr(
  obj({
    time: int("milliseconds after the render started"),
    image: imageSchema,
  }, { description: "one frame of the render, the whole viewport at half resolution (JPEG)" }),
  "up to 8 frames picked evenly across the animation (first and last changed frame included); one for a creative that does not move, none when nothing was drawn",
);

export const clickPointSchema = orEmpty(
  obj({
    x: num("viewport CSS px"),
    y: num("viewport CSS px"),
    screenshot_x: num("CSS px from the screenshot's left edge (the screenshot is the creative's box)"),
    screenshot_y: num("CSS px from the screenshot's top edge"),
    inside_screenshot: bool("the point lies inside the screenshot"),
  }),
  "where the scanner clicked for the click-through (the centre of the largest link or clickable element, else of the creative's box); {} when it did not click",
);

export function filmStripView(frames: readonly FilmStripFrame[]) {
  return frames.map((f) => ({ time: Number(f.timeMs), image: imageView(f.image) }));
}

export function clickPointView(p: ClickPoint | undefined) {
  if (!p) return {};
  return { x: p.x, y: p.y, screenshot_x: p.screenshotX, screenshot_y: p.screenshotY, inside_screenshot: p.insideScreenshot };
}
