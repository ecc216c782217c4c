import type { MediaFileInfo } from "./vast-document.ts";

/*
 * Which media file of a Linear creative gets the photosensitivity analysis (WCAG 2.3.1; MediaInput.analyze_flashes).
 * Flashes need every frame decoded, and a flash is the same on every rendition of the same creative (the renditions are
 * one master encoded at several sizes; the analysis averages the picture into a 48-cell grid anyway), so one rendition
 * per creative is analysed: the smallest that a player downloads whole and the prober can decode, which costs least.
 *
 * Candidates: delivery progressive (or undeclared), a video/* type that is not a playlist, no apiFramework (VPAID and
 * other interactive code is not a video). The smallest declared picture (width x height) wins; a candidate without a
 * declared size only when none has one; ties go to the lower declared bitrate, then to document order. The declared
 * size only chooses which file is decoded; every figure reported is measured from the file.
 */

const PLAYLIST = /mpegurl|dash\+xml|vnd\.ms-sstr/i;

function candidate(f: MediaFileInfo): boolean {
  const a = f.attrs;
  const delivery = a.delivery.trim().toLowerCase();
  const type = a.type.trim().toLowerCase();
  return (delivery === "" || delivery === "progressive") && type.startsWith("video/") && !PLAYLIST.test(type) && a.apiFramework.trim() === "";
}

/** Index in `files` of the rendition to analyse for flashes, or undefined when none is a decodable progressive video. */
export function flashRendition(files: MediaFileInfo[]): number | undefined {
  let best: number | undefined;
  let bestPixels = Number.POSITIVE_INFINITY;
  let bestRate = Number.POSITIVE_INFINITY;
  files.forEach((f, i) => {
    if (!candidate(f)) return;
    const px = f.attrs.width > 0 && f.attrs.height > 0 ? f.attrs.width * f.attrs.height : Number.POSITIVE_INFINITY;
    const rate = f.attrs.bitrate > 0 ? f.attrs.bitrate : Number.POSITIVE_INFINITY;
    if (best === undefined || px < bestPixels || (px === bestPixels && rate < bestRate)) {
      best = i;
      bestPixels = px;
      bestRate = rate;
    }
  });
  return best;
}
