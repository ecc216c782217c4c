// Worker-thread entry of image-work.ts: the screenshot's decode, colour, border and thumbnail, off the scanner's
// event loop (a full-budget screenshot is 8 M pixels: hundreds of ms of synchronous work).
import sharp from "sharp";
import { parentPort } from "node:worker_threads";
import { decodePng, dominantColor, hasBorder, thumbnailRaster } from "./fields/image.ts";
import type { ImageJob, ImageResult } from "./image-work.ts";

/**
 * The thumbnail's pixels (box filter, @cva/imaging) encoded by libjpeg-turbo (sharp), 4:4:4 as jpeg-js encoded them:
 * jpeg-js built its tables anew on every encode, ~60 ms of CPU for the bench's 300x250 shot, about 6 % of a whole
 * static scan's CPU across every process (issue 22); this takes ~1 ms.
 */
async function encodeThumbnail(raster: ReturnType<typeof decodePng>, width: number): Promise<Uint8Array> {
  const t = thumbnailRaster(raster, width);
  const jpeg = await sharp(t.data, { raw: { width: t.width, height: t.height, channels: 4 } })
    .removeAlpha().jpeg({ quality: 80, chromaSubsampling: "4:4:4" }).toBuffer();
  return new Uint8Array(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
}

async function analyse(job: ImageJob): Promise<ImageResult> {
  const raster = decodePng(job.png);
  const thumbnail = await encodeThumbnail(raster, job.thumbWidth);
  return {
    id: job.id,
    ok: true,
    color: dominantColor(raster),
    // Device pixels per CSS pixel of the shot (DPR, or less when a huge box was scaled down to its budget).
    hasBorder: job.cssWidth ? hasBorder(raster, raster.width / Math.max(1, job.cssWidth)) : false,
    thumbnail,
  };
}

parentPort?.on("message", (job: ImageJob) => {
  analyse(job).then(
    (out) => {
      // A copy of its own to transfer: sharp's output may share a pooled buffer.
      const own = out.ok ? { ...out, thumbnail: out.thumbnail.slice() } : out;
      parentPort!.postMessage(own, own.ok ? [own.thumbnail.buffer as ArrayBuffer] : []);
    },
    (err: unknown) => parentPort!.postMessage({ id: job.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies ImageResult),
  );
});
