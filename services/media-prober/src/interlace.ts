/*
 * Scan type from the pictures: ffmpeg's idet filter compares each frame with its neighbours line by line and classifies
 * it as top-field-first, bottom-field-first or progressive (its "multi frame" verdict, smoothed over the frames before).
 *
 * intl_thres=1.5 instead of idet's 1.04: measured on this project's fixtures and the shared corpus, the default reads
 * synthetic progressive video with fine moving detail (ffmpeg's testsrc2 at 720x480: 49 TFF / 11 progressive) as
 * interlaced, while 1.5 reads it as 60 progressive and still reads every truly interlaced file (testsrc2, testsrc,
 * mandelbrot and life sources woven from 50/59.94p to 25/29.97i, 352x288 to 720x480) as 50-60 of 60 TFF; real camera
 * footage (VAST-4.0-Short-Intro) reads 454/454 progressive at either threshold.
 *
 * idet runs on a bounded sample (file-video-pass.ts): windows of consecutive frames across the video, centre crop.
 */
export interface IdetCounts {
  tff: number;
  bff: number;
  progressive: number;
  undetermined: number;
}

/** The last "Multi frame detection" summary idet logs when it closes. */
export function parseIdet(stderr: string): IdetCounts | undefined {
  const all = [...stderr.matchAll(/Multi frame detection:\s*TFF:\s*(\d+)\s*BFF:\s*(\d+)\s*Progressive:\s*(\d+)\s*Undetermined:\s*(\d+)/g)];
  const m = all[all.length - 1];
  if (!m) return undefined;
  return { tff: Number(m[1]), bff: Number(m[2]), progressive: Number(m[3]), undetermined: Number(m[4]) };
}

/** Frames idet must have classified (not "undetermined") before its verdict is taken over the header's. */
export const MIN_DETERMINED_FRAMES = 10;

/**
 * "interlaced" when most classified frames show combing between the fields, "progressive" when most do not. With too
 * few classified frames (black, static or flat pictures give idet nothing to compare) the header's field order
 * decides; "" when neither says anything.
 */
export function judgeScanType(counts: IdetCounts | undefined, header: "progressive" | "interlaced" | ""): "progressive" | "interlaced" | "" {
  if (counts) {
    const interlaced = counts.tff + counts.bff;
    const determined = interlaced + counts.progressive;
    if (determined >= MIN_DETERMINED_FRAMES) return interlaced > counts.progressive ? "interlaced" : "progressive";
  }
  return header;
}
