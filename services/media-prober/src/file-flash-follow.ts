import { open, type FileHandle } from "node:fs/promises";
import { createFlashAnalyzer } from "@cva/imaging";
import { flashVerdictOf, MAX_BYTES, type FlashPlan, type FlashVerdict } from "./flash-frames.ts";

/*
 * The flash analysis of a raw video file, run while its video pass writes the grid frames (flash-frames.ts) rather than
 * after it: the pass writes the grid file frame by frame, so every POLL_MS the whole frames written since the last look
 * are pushed to the WCAG analyzer, and when the pass ends only the last ones are left. Until 2026-11-27 the whole file
 * was read and analysed after the pass (analyseFlashFrames), a phase of its own at the end of every scan (`flashes` in
 * the job's phase_ms: 0.1-0.45 s of CPU on the bench's 30 s 1080p file, warm to cold JIT, all of it on the scan's
 * critical path). The frames, their times (index / fps) and the verdict (flashVerdictOf) are the same; a pass that did
 * not finish still gives no verdict.
 */

/** How often the grid file is looked at while the pass runs. */
export const POLL_MS = 250;

export interface FlashFollower {
  /** Stops following; the verdict over every frame written (undefined when the pass did not finish or wrote none). */
  finish(passFinished: boolean, durationS: number): Promise<FlashVerdict | undefined>;
}

export function followFlashFrames(plan: FlashPlan): FlashFollower {
  const frameBytes = plan.cols * plan.rows * 3;
  const maxFrames = Math.floor(MAX_BYTES / frameBytes);
  const analyzer = createFlashAnalyzer({ viewport: { width: plan.width, height: plan.height } });
  const buf = Buffer.alloc(frameBytes * 64);
  let fh: FileHandle | undefined;
  let frames = 0;
  let failed = false;
  let busy: Promise<void> = Promise.resolve();

  /** Pushes every whole frame written since the last look (at most maxFrames in all, as analyseFlashFrames reads). */
  async function drain(): Promise<void> {
    if (failed) return;
    try {
      // The pass creates the file when its first grid frame is written; until then there is nothing to read.
      fh ??= await open(plan.path, "r").catch((e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT") return undefined;
        throw e;
      });
      if (!fh) return;
      for (;;) {
        const want = Math.min(buf.length, (maxFrames - frames) * frameBytes);
        if (want <= 0) return;
        const { bytesRead } = await fh.read(buf, 0, want, frames * frameBytes);
        const whole = Math.floor(bytesRead / frameBytes);
        // A frame only partly written yet is read again, whole, at the next look.
        for (let i = 0; i < whole; i++) {
          analyzer.push((frames * 1000) / plan.fps, buf.subarray(i * frameBytes, (i + 1) * frameBytes), plan.cols, plan.rows);
          frames++;
        }
        if (whole < 64) return;
      }
    } catch {
      failed = true;
    }
  }

  const timer = setInterval(() => {
    busy = busy.then(drain);
  }, POLL_MS);
  timer.unref();

  return {
    async finish(passFinished, durationS) {
      clearInterval(timer);
      await busy;
      if (passFinished) await drain();
      await fh?.close().catch(() => undefined);
      if (!passFinished || failed || frames === 0) return undefined;
      return flashVerdictOf(plan, analyzer.result(), frames, durationS);
    },
  };
}
