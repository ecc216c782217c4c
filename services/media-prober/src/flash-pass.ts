import { SAFE_INPUT_OPTIONS } from "./decode-limits.ts";
import { FILE_VIDEO_PASS_GLOBAL_OPTIONS, fullDecodeThreads } from "./file-limits.ts";
import type { FlashPlan } from "./flash-frames.ts";

/*
 * The flash pass of a VAST media file (issue 25 §1, WCAG 2.3.1): one more ffmpeg beside the audio and video passes,
 * run only on the rendition the VAST analyzer flagged (MediaInput.analyze_flashes: one per Linear creative, the
 * smallest decodable progressive one, since flashes do not depend on the rendition). The VAST video pass decodes
 * keyframes and two short stretches; flashes need every frame, so they get a decode of their own rather than turning
 * that pass into a full decode on every rendition.
 *
 * It is the same consumer as the raw video file's (flash-frames.ts planFlashFrames: the frames at the video's own
 * rate, at most 60 a second, area-averaged into the 48-cell grid, raw RGB to one file, analysed while it is written:
 * file-flash-follow.ts), fed from its own input instead of a split of the file pass's decode. For an MP4 it starts
 * beside ffprobe, planned from the file's index (early-pictures.ts). The input is the VAST pass's (the whitelists,
 * frame size limits of decode-limits.ts), video only (`-an -sn -dn`).
 *
 * Threads as the raw file's full decode (file-limits.ts): its one filter chain unthreaded on ffmpeg's main thread
 * (FILE_VIDEO_PASS_GLOBAL_OPTIONS) and fullDecodeThreads decoder threads (4 up to 1440p on 2 cores) instead of
 * DECODE_THREADS for both: this pass is the VAST scan's long pole and the only one decoding every frame. On the bench's
 * 15 s 720p file beside the audio and video passes (2026-11-27, bench/RESULTS.md): wall 1.39 → 1.04 s median at load
 * ~40 (faster in 8 of 8), 1.02 → 0.97 s at load ~11 (5 of 6); the grid file byte for byte the same.
 *
 * Measured and left as it is (2026-11-27 16:30–17:00Z, branch vast6, bench/RESULTS.md). The grid's scale cut into
 * two slices on a filter thread, the way scanVideo's 480 px scale is (`-filter_complex_threads 2`, the scale's
 * `threads=2`): the same grid byte for byte, no faster (12 pairs alone, 12 beside the other passes, 14 probes). 2, 3
 * or 5 decoder threads instead of 4: no difference either. The reason is that the probe's passes together are bound
 * by CPU on 2 cores (ffprobe, audio, video and flash passes ~1.2–1.3 CPU-s against the floor's ~0.9), so moving work
 * from one of this pass's threads to another does not shorten it. What it costs over a bare decode with the same
 * threads is the grid, ~0.1 CPU-s (swscale's 28-tap area filter on every line is ~75 ms of it). One decoder thread
 * cuts the probe's CPU by ~0.19 s (frame threading's own cost on this 2-vCPU host), but it ties the pass to one core
 * and was no faster in wall.
 */
export interface FlashPassPlan {
  args: string[];
  flash: FlashPlan;
}

export function planFlashPass(input: string, videoIndex: number, flash: FlashPlan): FlashPassPlan {
  const args = [
    "-hide_banner", "-nostdin", "-nostats", "-v", "error", ...FILE_VIDEO_PASS_GLOBAL_OPTIONS,
    ...SAFE_INPUT_OPTIONS.slice(0, -1), String(fullDecodeThreads(flash.width * flash.height)), "-an", "-sn", "-dn", "-i", input,
    "-filter_complex", flash.chain(`0:${videoIndex}`),
    ...flash.outputArgs,
    "-y",
  ];
  return { args, flash };
}
