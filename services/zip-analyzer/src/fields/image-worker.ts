// Worker-thread entry of image-work.ts: re-encodes one image at a time, off the zip analyzer's event loop and inside
// the thread's own heap limit. An image refused for its budget, or one that cannot be decoded, is answered with why.
import { parentPort } from "node:worker_threads";
import { ImageRefused, reencodeJpeg, reencodePng } from "./image-reencode.ts";
import type { ImageReply, ImageRequest } from "./image-work.ts";

parentPort?.on("message", (job: ImageRequest) => {
  let reply: ImageReply;
  try {
    const bytes = job.format === "png" ? reencodePng(job.data, job.budget) : reencodeJpeg(job.data, job.budget);
    reply = { id: job.id, ok: true, bytes };
  } catch (err) {
    const message = err instanceof Error ? err.message.slice(0, 200) : "error";
    reply = { id: job.id, ok: false, refused: err instanceof ImageRefused, error: message };
  }
  parentPort!.postMessage(reply);
});
parentPort?.postMessage({ ready: true });
