import type { MediaAccessibility } from "@cva/contracts";
import type { ProbeStream } from "./ffprobe.ts";
import { planFlashFrames, type FlashPlan, type FlashVerdict } from "./flash-frames.ts";
import { rotationOf } from "./video-info.ts";

/*
 * The flash analysis's plan and report fields, shared by the raw video file probe (file-prober.ts) and the VAST media
 * probe (prober.ts), so that both say the same thing in the same fields.
 */

/** The flash branch for the video stream, sized by its display picture (rotation applied, as ffmpeg's filters see it). */
export function flashPlanOf(video: ProbeStream, dir: string): FlashPlan | undefined {
  const rotated = Math.abs(rotationOf(video)) === 90;
  const w = video.width ?? 0;
  const h = video.height ?? 0;
  return planFlashFrames({ outDir: dir, width: rotated ? h : w, height: rotated ? w : h, frameRate: video.r_frame_rate ?? "" });
}

/** The verdict into the accessibility section's photosensitivity fields. */
export function withFlashes(a: MediaAccessibility, f: FlashVerdict, plan: { fps: number }): void {
  a.maxFlashesPerSecond = f.maxFlashesPerSecond;
  a.maxRedFlashesPerSecond = f.maxRedFlashesPerSecond;
  a.redFlash = f.redFails;
  a.flashRisk = f.generalFails || f.redFails;
  a.worstSecondMs = BigInt(Math.round(f.worstSecondMs));
  a.flashesJudged = f.judged;
  a.flashesNotJudgedReason = f.notJudgedReason;
  a.framesAnalyzed = f.frames;
  a.flashAnalysisFps = Math.round(plan.fps * 1000) / 1000;
  a.flashAreaThresholdPx = BigInt(f.areaThresholdPx);
}
