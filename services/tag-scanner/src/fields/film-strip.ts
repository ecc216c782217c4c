import { create } from "@bufbuild/protobuf";
import { ClickPointSchema, FilmStripFrameSchema, type ClickPoint, type FilmStripFrame } from "@cva/contracts";
import type { LandingArtifact } from "../gatherers/landing-page.ts";
import type { LayoutArtifact } from "../gatherers/layout.ts";

/** The film strip's frames as stored (film-strip-images.ts): artifact id, bytes, ms after the render started. */
export interface StoredFilmFrame { id: string; bytes: number; timeMs: number }

export function filmStripField(frames: readonly StoredFilmFrame[] | undefined): FilmStripFrame[] {
  return (frames ?? []).map((f) => create(FilmStripFrameSchema, {
    image: { id: f.id, bytes: BigInt(f.bytes), mimeType: "image/jpeg", color: "" },
    timeMs: BigInt(f.timeMs),
  }));
}

/**
 * What click-through.ts answers when it did not click (its noLanding reasons); any other landing artifact followed a
 * click at the layout probe's point.
 */
const NOT_CLICKED = new Set(["nothing to click", "no time left before the job's deadline"]);

/**
 * Where the scanner clicked, in viewport CSS px and relative to the screenshot (the creative's box, clipped in
 * document coordinates: the box plus the page's scroll); undefined when it did not click.
 */
export function clickPointField(landing: LandingArtifact | undefined, layout: LayoutArtifact | undefined): ClickPoint | undefined {
  const click = layout?.click;
  if (!landing || !click || NOT_CLICKED.has(landing.evidence)) return undefined;
  const box = layout.box;
  const sx = box ? click.x + layout.scroll.x - box.x : 0;
  const sy = box ? click.y + layout.scroll.y - box.y : 0;
  const round = (v: number) => Math.round(v * 10) / 10;
  return create(ClickPointSchema, {
    x: round(click.x), y: round(click.y),
    screenshotX: round(sx), screenshotY: round(sy),
    insideScreenshot: !!box && sx >= 0 && sy >= 0 && sx <= box.width && sy <= box.height,
  });
}
