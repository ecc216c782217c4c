// Worker-thread entry of image-work.ts: the screenshot's decode, colour, border and thumbnail, off the scanner's
// event loop (a full-budget screenshot is 8 M pixels: hundreds of ms of synchronous work).
import { parentPort } from "node:worker_threads";
import { decodePng, dominantColor, hasBorder, thumbnailJpeg } from "./fields/image.ts";
import type { ImageJob, ImageResult } from "./image-work.ts";

parentPort?.on("message", (job: ImageJob) => {
  let out: ImageResult;
  try {
    const raster = decodePng(job.png);
    const thumbnail = thumbnailJpeg(raster, job.thumbWidth);
    out = {
      id: job.id,
      ok: true,
      color: dominantColor(raster),
      // Device pixels per CSS pixel of the shot (DPR, or less when a huge box was scaled down to its budget).
      hasBorder: job.cssWidth ? hasBorder(raster, raster.width / Math.max(1, job.cssWidth)) : false,
      thumbnail,
    };
    parentPort!.postMessage(out, [thumbnail.buffer as ArrayBuffer]);
  } catch (err) {
    out = { id: job.id, ok: false, error: err instanceof Error ? err.message : String(err) };
    parentPort!.postMessage(out);
  }
});
