// Entry of the image worker process (decode-process.ts starts it under prlimit): measures one image at a time with
// sharp/libvips and answers over the IPC channel. It exits when the prober goes (the channel closes), and retires
// itself once it has used half of its lifetime CPU limit, so that limit only ever stops a runaway decode.
import sharp from "sharp";
import { ImageInputError } from "./errors.ts";
import { measureImage, type MeasureJob, type MeasureResult } from "./measure.ts";

export type WorkerRequest = { id: number; job: MeasureJob };
export type WorkerReply =
  | { id: number; ok: true; result: MeasureResult }
  | { id: number; ok: false; input: boolean; message: string };
export type WorkerHello = { ready: true };

// No cache between images (memory stays what one image needs); two libvips threads per operation.
sharp.cache(false);
sharp.concurrency(Number(process.env.CVA_IMAGE_THREADS) || 2);

const cpuLimitS = Number(process.env.CVA_IMAGE_CPU_SECONDS) || 0;

process.on("disconnect", () => process.exit(0));
process.on("message", (m: WorkerRequest) => {
  void (async () => {
    let reply: WorkerReply;
    try {
      reply = { id: m.id, ok: true, result: await measureImage(m.job) };
    } catch (e) {
      const input = e instanceof ImageInputError;
      reply = { id: m.id, ok: false, input, message: input ? e.message : e instanceof Error ? e.message : String(e) };
    }
    process.send?.(reply, () => {
      const { user, system } = process.cpuUsage();
      if (cpuLimitS > 0 && (user + system) / 1e6 > cpuLimitS / 2) process.exit(0);
    });
  })();
});
process.send?.({ ready: true } satisfies WorkerHello);
