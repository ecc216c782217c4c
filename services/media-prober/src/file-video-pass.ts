import { parseBlackdetect, parseFreezedetect, parseShowinfoTimes, type Interval } from "./content.ts";
import { FILE_INPUT_OPTIONS, FILE_VIDEO_PASS_GRAPH_OPTIONS, FILTER_UNTHREADED, fileVideoPassInputOptions } from "./file-limits.ts";
import type { FlashPlan } from "./flash-frames.ts";
import { parseIdet, type IdetCounts } from "./interlace.ts";
import { parseCropdetect, type CropFrame } from "./letterbox.ts";
import { readPictureCaptions } from "./media-accessibility.ts";
import { isCompleteJpeg, isRaster, readComplete } from "./pass-files.ts";
import {
  COLOUR_RASTER, FIRST_FRAME_WINDOW_S, firstFrameInput, pictureOutputMaps, posterSeek, readPoster, stripSelect, type StripSelection, videoPassOutputs,
  type VideoPassOutputs,
} from "./video-pass.ts";

/*
 * The video pass of an uploaded video file: every frame is decoded once (input 0), and split to the frame consumers
 * (`frameConsumers`, the one place the decoded frames go: a new per-frame measurement is one more consumer there).
 * (The VAST media pass, video-pass.ts, decodes only keyframes and two short stretches, because it needs no per-frame
 * measurement; a raw file's black slates, freezes and scan type do need the frames, so decoding all of them is this
 * pass's floor, and the filters add little to it:)
 *
 *  analysis: at most ANALYSIS_FPS frames a second, scaled once to ANALYSIS_WIDTH px wide (area averages:
 *    SMALL_SCALE), then a white sentinel frame where the last frame ends (content.ts says why) →
 *      blackdetect → black runs (leading/trailing black);
 *      freezedetect → runs of unchanged picture (longest freeze);
 *      showinfo of the first frame and the last TAIL_S seconds → where the stream starts and ends on this timeline;
 *    and, from the same small picture, the flash grid (flash-frames.ts: 48 cells on the long side, each an average).
 *    Black, freezes and flashes do not need full resolution: 98 % of pixels under 10 % luma, a frame-to-frame
 *    difference under -50 dB, a cell's mean luminance, read the same on a 480 px picture of area averages; one scale
 *    first costs less than running them on 1080p, and far less than a second read of every full frame.
 *  interlace: windows of IDET_WINDOW consecutive frames every IDET_EVERY frames, at most IDET_MAX frames, centre
 *    quarter of the picture at full resolution (combing is a line-level effect: no scaling) → idet (interlace.ts).
 *  bars: cropdetect on at most CROP_FPS frames a second at full resolution → letterboxing/pillarboxing with bar sizes
 *    (letterbox.ts, the VAST media rule).
 *  film strip: the keyframes video-pass.ts's choice names.
 *  images from inputs of their own (the same chains as the VAST pass): the first frame under 98 % black within the
 *    first FIRST_FRAME_WINDOW_S (input 1: screenshot, thumbnail, colour) and the poster (input 2, a seek to the
 *    keyframe nearest mid-duration, or the first frame after it that is not black: posterSeek). Each decodes a few
 *    frames and closes; on input 0 their blackframe ran on every frame of its 10 s window (planFileVideoPass says why).
 *
 * Measured on a 30 s 1920x1080 30 fps H.264 file (2 decoder threads, two runs each on a heavily loaded 2-core
 * machine, so CPU time, not wall time): a bare decode (`ffmpeg -i f -an -f null -`) 5.9-6.6 s of CPU, this pass
 * 7.3-8.1 s — about 1.2x; scaling to 480 px is most of the difference. A CPU profile of this pass (perf, 10 s of the
 * bench's 1080p file, 2026-11-26): libavcodec (decoding, the few JPEGs) 69 %, libswscale (the 480 px scale) 9 %,
 * kernel (page faults of frame buffers, scheduling) 9 %, libavfilter 4.5 %, the dynamic loader 3 % (ffmpeg 5.1 loads
 * ~215 shared libraries: ~0.1 s of CPU per process started, which is why the passes are few).
 */

export const ANALYSIS_FPS = 60;
export const ANALYSIS_WIDTH = 480;
export const CROP_FPS = 5;
export const IDET_WINDOW = 60;
export const IDET_EVERY = 300;
export const IDET_MAX = 600;
export const TAIL_S = 1.5;
/** Freezes shorter than this are not reported (freezedetect's `d`). */
export const FREEZE_MIN_S = 0.5;

/**
 * The small picture of the analysis branch: at most ANALYSIS_WIDTH px wide, each pixel the area average of the full
 * picture's pixels under it (`flags=area`: a 4x4 mean at 1080p). It feeds blackdetect, freezedetect and the flash grid
 * (flash-frames.ts scales it on to 48 cells with area averaging: an average of averages, so each cell is still the
 * mean of its 40x40 px of the full picture, to the rounding of the 8-bit step between). Until 2026-11-27 the grid was
 * a second scale of the full picture and this one was fast_bilinear: two full-resolution reads of every frame. On 150
 * raw 1080p frames, the filters of input 0 cost 0.58 s of CPU that way and 0.21 s this way (bench/RESULTS.md).
 */
const SMALL_SCALE = `scale=w='min(${ANALYSIS_WIDTH},iw)':h=-2:flags=area`;
/**
 * blackdetect: a picture is black when 98 % of its pixels are under 10 % of the luma range; any run length counts.
 * Unthreaded (FILTER_UNTHREADED): on a 480 px picture its work is smaller than a hand-off to a filter thread; the
 * graph's threads are for SMALL_SCALE (file-limits.ts FILE_VIDEO_PASS_FILTER_THREADS).
 */
const BLACKDETECT = `blackdetect=d=0:pic_th=0.98:pix_th=0.10:${FILTER_UNTHREADED}`;
/**
 * -50 dB rather than freezedetect's -60: a held frame in a lossy encode is refined by the encoder over its first
 * copies, which -60 dB reads as motion (x264 at CRF 30: a 1.56 s hold measured 1.40 s at -60 dB, 1.56 s at -50 dB);
 * on real footage (VAST-4.0-Short-Intro) both find the same title-card holds, -50 dB three more static moments of
 * 0.5-0.8 s. Camera noise on a static shot is far above either.
 */
const FREEZEDETECT = `freezedetect=n=-50dB:d=${FREEZE_MIN_S}`;
const CROPDETECT = "cropdetect=limit=24:round=2:reset=1:skip=0";
const IDET = "idet=intl_thres=1.5";

export interface FileVideoPassInput {
  input: string;
  outDir: string;
  videoIndex: number;
  /** Video duration, seconds (0 = unknown: no poster time, no tail window). */
  duration: number;
  /** Keyframe times on ffmpeg's timeline, from the packet scan; [] = unknown. */
  keyframes: number[];
  /** The coded picture's width x height (sets input 0's decoder threads: fileVideoPassDecodeThreads); 0 or absent = unknown. */
  pixels?: number;
  stripFrames?: number;
  /** The photosensitivity branch (flash-frames.ts): one more output of the same decode. */
  flash?: FlashPlan;
  /** Look for captions in the pictures (media-accessibility.ts captionChain) on the first frames of input 1. */
  captions?: boolean;
}

export interface FileVideoPassPlan {
  args: string[];
  outputs: VideoPassOutputs;
  flash?: FlashPlan;
  captions?: boolean;
  /** Each film strip tile's frame time, ms (video-pass.ts StripSelection.timesMs). */
  stripTimesMs: number[];
}

/**
 * One consumer of the decoded frames: a chain that reads every frame of input 0 (from `[<label>]`) and ends in
 * labelled outputs written to the null muxer (what is measured is read from the log). To measure something more per
 * frame, add a consumer here: the frames are decoded once, and split to every consumer.
 */
export interface FrameConsumer {
  /** The split's output this consumer reads. */
  label: string;
  /** Filter chains, the first reading `[label]`. */
  chains: string[];
  /** Labels of the chains' ends, mapped to the null muxer. */
  measuring: string[];
}

/** The measurements over every frame (black, freezes, the stream's ends; interlace; bars) and the film strip. */
function frameConsumers(p: FileVideoPassInput, strip: StripSelection): FrameConsumer[] {
  const d = p.duration;
  const spacing = (fps: number) => `select='isnan(prev_selected_t)+gte(t-prev_selected_t,${(1 / fps - 0.0005).toFixed(4)})'`;
  const tail = d > 0 ? `eq(n,0)+gte(t,${Math.max(0, d - TAIL_S).toFixed(3)})` : "eq(n,0)";
  return [
    {
      label: "an",
      chains: [
        // One scale of the full picture for every measurement that reads averages (SMALL_SCALE says why); the flash
        // grid, when planned, is one more output of it rather than a second scale of the full picture.
        `[an]${spacing(ANALYSIS_FPS)},${SMALL_SCALE}` + (p.flash ? `,split=2[ansmall][fl]` : `[ansmall]`),
        // The sentinel is white, so it ends a black run, and differs from the frame before it, so it ends a freeze.
        `[ansmall]format=yuv420p,tpad=stop=1:stop_mode=add:color=white,split=3[ab][af][at]`,
        `[ab]${BLACKDETECT}[black]`,
        `[af]${FREEZEDETECT}[frozen]`,
        `[at]select='${tail}',showinfo[tailed]`,
        // Photosensitivity (flash-frames.ts): small grey frames to its own raw output (FlashPlan.outputArgs).
        ...(p.flash ? [p.flash.chain("fl")] : []),
      ],
      measuring: ["black", "frozen", "tailed"],
    },
    {
      label: "il",
      chains: [
        `[il]select='lt(mod(n,${IDET_EVERY}),${IDET_WINDOW})',trim=end_frame=${IDET_MAX},` +
          `crop=w=trunc(iw/4)*2:h=trunc(ih/4)*2:x=trunc(iw/8)*2:y=trunc(ih/8)*2,${IDET}[idet]`,
      ],
      measuring: ["idet"],
    },
    { label: "bars", chains: [`[bars]${spacing(CROP_FPS)},${CROPDETECT}[cropped]`], measuring: ["cropped"] },
    // The film strip is an image, not a measurement: its end goes to its JPEG (pictureOutputMaps), not the null muxer.
    { label: "fs", chains: [`[fs]${strip.filter},scale=w=-2:h='min(120,ih)',tile=${strip.tiles}x1[strip]`], measuring: [] },
  ];
}

/**
 * Three inputs of the same file, as the VAST media pass (video-pass.ts) opens it: input 0 decodes every frame once and
 * splits it to the frame consumers; input 1 (`-t FIRST_FRAME_WINDOW_S`) and input 2 (a seek to the poster keyframe)
 * decode only the few frames of the first visible frame and of the poster, and close when those are found. On input 0
 * the two image chains cost ~0.5 s of CPU per 10 s of 1080p each (ffmpeg 5's blackframe kept running on every frame
 * of its window after the image was found); as inputs of their own they cost a few frames.
 */
export function planFileVideoPass(p: FileVideoPassInput): FileVideoPassPlan {
  const o = videoPassOutputs(p.outDir);
  const v = p.videoIndex;
  const strip = stripSelect(p.keyframes, p.duration, p.stripFrames ?? 10);
  const consumers = frameConsumers(p, strip);
  const poster = posterSeek(p.keyframes, p.duration, 2, v, FILE_INPUT_OPTIONS, p.input);
  const graph = [
    // The one place every decoded frame comes from.
    `[0:${v}]split=${consumers.length}${consumers.map((c) => `[${c.label}]`).join("")}`,
    ...consumers.flatMap((c) => c.chains),
    ...firstFrameInput(v, p.captions ?? false),
    ...poster.chains(false),
  ];
  // The first frame's cropdetect copy is not needed here: bars are judged on every 5th-of-a-second frame of input 0.
  graph.push("[fcrop]nullsink");
  const maps = pictureOutputMaps(o, [...consumers.flatMap((c) => c.measuring), ...(p.captions ? ["ccinfo"] : [])]);
  const args = [
    // The graph's threads slice the 480 px scale; every other slice-threaded filter of input 0 runs inline
    // (file-limits.ts FILE_VIDEO_PASS_FILTER_THREADS).
    "-hide_banner", "-nostdin", "-nostats", "-v", "info", ...FILE_VIDEO_PASS_GRAPH_OPTIONS,
    // Every frame of input 0 is decoded: more decoder threads for it (file-limits.ts fileVideoPassDecodeThreads).
    ...fileVideoPassInputOptions(p.pixels ?? 0), "-an", "-sn", "-dn", "-i", p.input,
    ...FILE_INPUT_OPTIONS, "-t", String(FIRST_FRAME_WINDOW_S), "-an", "-sn", "-dn", "-i", p.input,
    ...poster.input,
    "-filter_complex", graph.join(";"),
    ...maps,
    ...(p.flash?.outputArgs ?? []),
    "-y",
  ];
  return { args, outputs: o, flash: p.flash, captions: p.captions, stripTimesMs: strip.timesMs };
}


export interface FileVideoPassResult {
  firstFrame?: Buffer;
  firstFrameRgb?: Buffer;
  thumbnail?: Buffer;
  poster?: Buffer;
  posterRgb?: Buffer;
  filmStrip?: Buffer;
  /** Each film strip tile's frame time, ms, when the strip was written and its frames were known ahead. */
  filmStripTimesMs?: number[];
  /** Only from a pass that finished (verdicts over the whole video). */
  cropFrames: CropFrame[];
  blacks: Interval[];
  freezes: Interval[];
  idet?: IdetCounts;
  /** Where the analysed stream starts and ends (the sentinel's time) on the filter timeline. */
  firstFrameTime?: number;
  endTime?: number;
  /** Captions in the pictures (when the plan looked): true, false, or undefined when the pass saw too few frames. */
  pictureCaptions?: boolean;
}

export async function readFileVideoPass(plan: FileVideoPassPlan, stderr: string, finished: boolean): Promise<FileVideoPassResult> {
  const o = plan.outputs;
  const raster = isRaster(COLOUR_RASTER * COLOUR_RASTER * 3);
  const [firstFrame, firstFrameRgb, thumbnail, { poster, posterRgb }, filmStrip] = await Promise.all([
    readComplete(o.firstFrame, isCompleteJpeg),
    readComplete(o.firstFrameRgb, raster),
    readComplete(o.thumbnail, isCompleteJpeg),
    readPoster(o),
    readComplete(o.filmStrip, isCompleteJpeg),
  ]);
  const pictureCaptions = plan.captions ? readPictureCaptions(stderr, finished) : undefined;
  if (!finished) return { firstFrame, firstFrameRgb, thumbnail, poster, posterRgb, filmStrip, filmStripTimesMs: filmStrip ? plan.stripTimesMs : [], cropFrames: [], blacks: [], freezes: [], pictureCaptions };
  const times = parseShowinfoTimes(stderr);
  return {
    firstFrame, firstFrameRgb, thumbnail, poster, posterRgb, filmStrip, filmStripTimesMs: filmStrip ? plan.stripTimesMs : [], pictureCaptions,
    cropFrames: parseCropdetect(stderr),
    blacks: parseBlackdetect(stderr),
    freezes: parseFreezedetect(stderr),
    idet: parseIdet(stderr),
    firstFrameTime: times[0],
    endTime: times.length > 1 ? times[times.length - 1] : undefined,
  };
}
