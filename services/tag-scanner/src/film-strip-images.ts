import type { ArtifactSink } from "@cva/platform";
import type { StoredFilmFrame } from "./fields/film-strip.ts";
import { pickFilmStrip, type FilmStripArtifact } from "./gatherers/film-strip.ts";

/**
 * Stores the film strip's picked frames (gatherers/film-strip.ts) in the artifact sink, as the screencast encoded them,
 * each with its time in ms after the render started (`renderStartedAt`: epoch ms, the clock the capture times are on,
 * as for the flash analysis's worst second). A frame the sink refuses is left out; the strip never fails a scan.
 */
export async function storeFilmStrip(artifacts: ArtifactSink, strip: FilmStripArtifact, renderStartedAt: number | undefined): Promise<StoredFilmFrame[]> {
  if (renderStartedAt === undefined) return [];
  const picked = pickFilmStrip(strip.kept);
  const stored = await Promise.all(picked.map(async (f) => {
    try {
      const id = await artifacts.put(f.jpeg, "image/jpeg");
      return { id, bytes: f.jpeg.byteLength, timeMs: Math.max(0, Math.round(f.at - renderStartedAt)) };
    } catch {
      return undefined;
    }
  }));
  return stored.filter((f): f is StoredFilmFrame => f !== undefined);
}
