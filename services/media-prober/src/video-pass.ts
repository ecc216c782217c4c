import { join } from "node:path";
import { PASS_GLOBAL_OPTIONS, SAFE_INPUT_OPTIONS } from "./decode-limits.ts";
import { parseCropdetect, type CropFrame } from "./letterbox.ts";
import { captionChain, readPictureCaptions } from "./media-accessibility.ts";
import { isCompleteJpeg, isRaster, readComplete } from "./pass-files.ts";

/**
 * The video pass: one ffmpeg process that opens the local file three times, so that each picture product decodes only
 * the frames its definition needs (decoding every frame of the video is what made the old single pass expensive):
 *
 *  input 0, `-skip_frame nokey`: keyframes only — a keyframe decodes on its own, nothing before it is needed.
 *     → letterboxing: cropdetect on the keyframes, at most 5 per second (the old per-frame rate, for all-intra video),
 *       plus the first visible frame and the poster, which are decoded anyway;
 *     → film strip: the keyframe nearest to each of the n equally spaced times, each keyframe once (`pickStripKeyframes`).
 *  input 1, `-t 10`: from the start, stopping at the first frame under 98% black (blackframe + metadata select, then
 *     trim closes the branch and ffmpeg stops reading this input) → first frame, thumbnail, its colour raster.
 *     Exact by construction: every frame before the first visible one must be looked at, and no frame after it is.
 *  input 2, `-noaccurate_seek -ss <K>` before `-i`, K the keyframe nearest mid-duration (`posterKeyframe`): the demuxer
 *     jumps straight to K, which decodes on its own → poster (`posterChains`): K itself, or, when K is black (a fade,
 *     a slate between scenes), the first frame after it that is not, within POSTER_WINDOW_S. A representative frame
 *     near the middle, not the exact mid-duration frame: that one needed every reference frame since its keyframe
 *     decoded (~190 frames of x264's default 10 s GOP, two thirds of this pass); usually one frame is decoded now.
 *
 * VP9 in WebM is the one common case where neither the demuxer (`-discard nokey`) nor the decoder (`-skip_frame
 * nokey`) drops the other frames: input 0 then decodes every frame — results stay correct, the cost is the old one.
 */
export interface VideoPassInput {
  input: string;
  outDir: string;
  videoIndex: number;
  /** Video stream duration, seconds (0 = unknown). */
  duration: number;
  /** Keyframe times on ffmpeg's timeline (seconds from the file's start time), from the packet scan; [] = unknown. */
  keyframes: number[];
  /** Frames in the film strip, at most. */
  stripFrames?: number;
  /** Look for captions in the pictures (media-accessibility.ts captionChain) on the first frames of input 1. */
  captions?: boolean;
}

export interface VideoPassOutputs {
  firstFrame: string;
  firstFrameRgb: string;
  thumbnail: string;
  /** The poster when a frame under 98 % black was found from its keyframe on (posterChains). */
  poster: string;
  posterRgb: string;
  /** The poster keyframe itself: the poster when every frame in the window was black. */
  posterKey: string;
  posterKeyRgb: string;
  filmStrip: string;
}

/** The output files of a picture pass in `dir`. */
export function videoPassOutputs(dir: string): VideoPassOutputs {
  return {
    firstFrame: join(dir, "first.jpg"),
    firstFrameRgb: join(dir, "first.rgb"),
    thumbnail: join(dir, "thumb.jpg"),
    poster: join(dir, "poster.jpg"),
    posterRgb: join(dir, "poster.rgb"),
    posterKey: join(dir, "poster-key.jpg"),
    posterKeyRgb: join(dir, "poster-key.rgb"),
    filmStrip: join(dir, "strip.jpg"),
  };
}

/** How far after the poster keyframe a frame that is not black is looked for, seconds. */
export const POSTER_WINDOW_S = 10;
/** Frame times are matched to the packet scan's keyframe times within half a millisecond. */
const KEY_MATCH_S = 0.0005;

/**
 * The poster's keyframe: of the packet scan's keyframe times, the one nearest mid-duration (the earlier of two as
 * near). Undefined when there is no keyframe index or no duration.
 */
export function posterKeyframe(keyframes: number[], duration: number): number | undefined {
  if (!(duration > 0)) return undefined;
  const mid = duration / 2;
  let best: number | undefined;
  for (const t of keyframes) {
    if (!Number.isFinite(t)) continue;
    if (best === undefined || Math.abs(t - mid) < Math.abs(best - mid) || (Math.abs(t - mid) === Math.abs(best - mid) && t < best)) best = t;
  }
  return best;
}

/**
 * The poster's filter chains, reading `source` (frames on the file's timeline; `from`, a select expression, passes
 * the poster keyframe and what follows it): [poster]/[posterrgb] = the first frame from the keyframe on that is under
 * 98 % black (blackframe, as the first frame), within POSTER_WINDOW_S; [posterkey]/[posterkeyrgb] = the keyframe, the
 * fallback when all of them are black (readPoster). `crop` adds a [pcrop] copy of the poster for cropdetect. Both
 * branches end after one frame, so a decoder reading only for them stops there.
 */
export function posterChains(source: string, from: string | undefined, crop: boolean): string[] {
  const rgb = `scale=${COLOUR_RASTER}:${COLOUR_RASTER},format=rgb24`;
  const sel = from ? `select='${from}',` : "";
  return [
    `${source}${sel}trim=duration=${POSTER_WINDOW_S},split=2[pscan][pkey]`,
    `[pscan]blackframe=amount=0:threshold=32,metadata=mode=select:key=lavfi.blackframe.pblack:value=98:function=less,` +
      `trim=end_frame=1,scale=w='min(1920,iw)':h=-2,split=${crop ? 3 : 2}[poster][pcol]${crop ? "[pcrop]" : ""}`,
    `[pcol]${rgb}[posterrgb]`,
    `[pkey]trim=end_frame=1,scale=w='min(1920,iw)':h=-2,split=2[posterkey][pkcol]`,
    `[pkcol]${rgb}[posterkeyrgb]`,
  ];
}

/**
 * The first visible frame's chains, reading `source` (an input opened with `-t FIRST_FRAME_WINDOW_S`): the first frame
 * under 98 % black (blackframe with amount=0 tags every frame with its share of black pixels) → [first], [thumb],
 * [firstrgb], and [fcrop] for cropdetect. trim after one frame: its end closes the branch, so ffmpeg stops decoding
 * that input. (On a stream that also feeds other branches it would not: ffmpeg 5's blackframe and metadata filters do
 * not pass an end back upstream and would run on every frame of the window — ~0.5 s of CPU per 10 s of 1080p —
 * which is why both passes read these frames from an input of their own.)
 */
export function firstFrameChains(source: string): string[] {
  const rgb = `scale=${COLOUR_RASTER}:${COLOUR_RASTER},format=rgb24`;
  return [
    `${source}blackframe=amount=0:threshold=32,metadata=mode=select:key=lavfi.blackframe.pblack:value=98:function=less,` +
      `trim=end_frame=1,split=2[fcrop][fimg]`,
    `[fimg]scale=w='min(1920,iw)':h=-2,split=3[first][fthumb][fcol]`,
    `[fthumb]scale=w='min(320,iw)':h=-2[thumb]`,
    `[fcol]${rgb}[firstrgb]`,
  ];
}

/**
 * Input 1's chains: the first visible frame, and with `captions` the caption branch on its first frames as well
 * (captionChain: eight frames, which the first frame's search decodes anyway unless it is found earlier; both branches
 * end, so the input still closes).
 */
export function firstFrameInput(videoIndex: number, captions: boolean): string[] {
  if (!captions) return firstFrameChains(`[1:${videoIndex}]`);
  return [`[1:${videoIndex}]split=2[ffsrc][ccsrc]`, ...firstFrameChains("[ffsrc]"), captionChain("[ccsrc]")];
}

/**
 * The poster's input and its chains' source: a seek straight to the poster keyframe K (`-noaccurate_seek`: decoding
 * starts at the keyframe the demuxer finds, nothing before it is decoded and dropped), just past K so that the
 * demuxer's backward search lands on K itself (a time rounded below K would land on the keyframe before it); without
 * a keyframe index, the keyframe at or before mid-duration. The frames' times are put back on the file's timeline
 * (they count from the seek point), so that cropdetect's log names them as the other inputs would and a leading frame
 * of an open GOP, shown before K, is not taken for it.
 */
export function posterSeek(keyframes: number[], duration: number, inputIndex: number, videoIndex: number, inputOptions: string[], file: string): {
  input: string[]; chains: (crop: boolean) => string[];
} {
  const key = posterKeyframe(keyframes, duration);
  const seek = key !== undefined ? (key + KEY_MATCH_S).toFixed(6) : duration > 0 ? (duration / 2).toFixed(3) : undefined;
  return {
    input: [...inputOptions, ...(seek ? ["-noaccurate_seek", "-ss", seek] : []), "-t", String(POSTER_WINDOW_S + 1), "-an", "-sn", "-dn", "-i", file],
    chains: (crop) => posterChains(`[${inputIndex}:${videoIndex}]setpts=PTS+${seek ?? "0"}/TB,`, key !== undefined ? `gte(t,${(key - KEY_MATCH_S).toFixed(6)})` : undefined, crop),
  };
}

/** The poster a pass wrote: the frame that is not black, else the keyframe; each with its colour raster. */
export async function readPoster(o: VideoPassOutputs): Promise<{ poster?: Buffer; posterRgb?: Buffer }> {
  const raster = isRaster(COLOUR_RASTER * COLOUR_RASTER * 3);
  const [poster, posterRgb, key, keyRgb] = await Promise.all([
    readComplete(o.poster, isCompleteJpeg),
    readComplete(o.posterRgb, raster),
    readComplete(o.posterKey, isCompleteJpeg),
    readComplete(o.posterKeyRgb, raster),
  ]);
  return poster ? { poster, posterRgb } : { poster: key, posterRgb: key ? keyRgb : undefined };
}

export interface VideoPassPlan {
  args: string[];
  outputs: VideoPassOutputs;
  /** The pass looks for captions in the pictures (readPictureCaptions). */
  captions?: boolean;
  /** Each film strip tile's frame time, ms (StripSelection.timesMs). */
  stripTimesMs: number[];
}

/** How far into the video the first visible frame is looked for. */
export const FIRST_FRAME_WINDOW_S = 10;
/** Raster size for the dominant-colour computation. */
export const COLOUR_RASTER = 32;
/** Judged frames per second for letterboxing, at most. */
const CROP_RATE = 5;
/** Per-frame bounds of non-black content (`reset=1:skip=0`: each frame's own, not a running union). */
const CROPDETECT = "cropdetect=limit=24:round=2:reset=1:skip=0";

/**
 * The output side of a picture pass (this one and the raw file's, file-video-pass.ts): the graph's labelled pictures
 * to their files — JPEGs, and raw RGB rasters for the colour — and the measuring branches to the null muxer.
 */
export function pictureOutputMaps(o: VideoPassOutputs, measuring: string[]): string[] {
  const maps: string[] = [];
  const image = (label: string, path: string, q: number) =>
    maps.push("-map", `[${label}]`, "-frames:v", "1", "-q:v", String(q), "-f", "image2", "-update", "1", path);
  const raw = (label: string, path: string) => maps.push("-map", `[${label}]`, "-frames:v", "1", "-f", "rawvideo", path);
  image("first", o.firstFrame, 2);
  image("thumb", o.thumbnail, 4);
  raw("firstrgb", o.firstFrameRgb);
  image("poster", o.poster, 2);
  raw("posterrgb", o.posterRgb);
  image("posterkey", o.posterKey, 2);
  raw("posterkeyrgb", o.posterKeyRgb);
  image("strip", o.filmStrip, 4);
  for (const label of measuring) maps.push("-map", `[${label}]`, "-f", "null", "-");
  return maps;
}

export function planVideoPass(p: VideoPassInput): VideoPassPlan {
  const o = videoPassOutputs(p.outDir);
  const n = p.stripFrames ?? 10;
  const d = p.duration;
  const v = p.videoIndex;
  const strip = stripSelect(p.keyframes, d, n);
  const poster = posterSeek(p.keyframes, d, 2, v, SAFE_INPUT_OPTIONS, p.input);
  const graph = [
    `[0:${v}]split=2[kcrop][kstrip]`,
    `[kcrop]select='isnan(prev_selected_t)+gte(t-prev_selected_t,${1 / CROP_RATE})',${CROPDETECT}[crop]`,
    `[kstrip]${strip.filter},scale=w=-2:h='min(120,ih)',tile=${strip.tiles}x1[strip]`,
    ...firstFrameInput(v, p.captions ?? false),
    ...poster.chains(true),
    // The first visible frame and the poster are decoded anyway: judging them too gives the letterboxing verdict
    // picture content even where every keyframe is black (a fade-in whose only keyframe is the black first frame).
    `[fcrop]${CROPDETECT}[fcropped]`,
    `[pcrop]${CROPDETECT}[pcropped]`,
  ];
  const maps = pictureOutputMaps(o, ["crop", "fcropped", "pcropped", ...(p.captions ? ["ccinfo"] : [])]);

  // Input options apply to the next -i only: each input carries the whitelists.
  const args = [
    "-hide_banner", "-nostdin", "-nostats", "-v", "info", ...PASS_GLOBAL_OPTIONS,
    // Keyframes only, twice over: the demuxer drops other packets where it can (AV1 decoders ignore skip_frame), the
    // decoder skips them where it can (MPEG-TS does not honour discard).
    ...SAFE_INPUT_OPTIONS, "-discard", "nokey", "-skip_frame", "nokey", "-an", "-sn", "-dn", "-i", p.input,
    ...SAFE_INPUT_OPTIONS, "-t", String(FIRST_FRAME_WINDOW_S), "-an", "-sn", "-dn", "-i", p.input,
    ...poster.input,
    "-filter_complex", graph.join(";"),
    ...maps,
    "-y",
  ];
  return { args, outputs: o, captions: p.captions, stripTimesMs: strip.timesMs };
}

/**
 * Which keyframes make the film strip: for each of the n times k·d/n (the old strip's sampling), the keyframe
 * nearest to it; a keyframe nearest to several times appears once. So a video with keyframes every 2 s gets ten
 * distinct frames across its length, one with two keyframes gets two — never a repeated or a blank tile.
 */
export function pickStripKeyframes(keyframes: number[], duration: number, n: number): number[] {
  const keys = [...new Set(keyframes.filter((t) => Number.isFinite(t)))].sort((a, b) => a - b);
  if (keys.length === 0 || n <= 0) return [];
  if (!(duration > 0)) return keys.slice(0, n);
  const picked = new Set<number>();
  for (let k = 0; k < n; k++) {
    const at = (k * duration) / n;
    let best = keys[0]!;
    for (const t of keys) if (Math.abs(t - at) < Math.abs(best - at)) best = t;
    picked.add(best);
  }
  return [...picked].sort((a, b) => a - b);
}


/** The film strip's frames: a select filter, its tile count, and each tile's time when it is known. */
export interface StripSelection {
  filter: string;
  tiles: number;
  /** Each tile's frame time in ms from the video's start, left to right; empty when the frames are not known ahead. */
  timesMs: number[];
}

export function stripSelect(keyframes: number[], d: number, n: number): StripSelection {
  const picked = pickStripKeyframes(keyframes, d, n);
  if (picked.length > 0) {
    const terms = picked.map((t) => `lt(abs(t-${t.toFixed(6)}),${KEY_MATCH_S})`).join("+");
    return { filter: `select='${terms}'`, tiles: picked.length, timesMs: picked.map((t) => Math.round(t * 1000)) };
  }
  // No keyframe index (no key-flagged packet in the packet scan): the first decoded frame of each of the n intervals;
  // a tile stays blank where an interval had none, so no tile's time is known ahead.
  const slot = (d > 0 ? d / n : 1).toFixed(6);
  return { filter: `select='isnan(prev_selected_t)+gt(floor(t/${slot}),floor(prev_selected_t/${slot}))'`, tiles: n, timesMs: [] };
}

export interface VideoPassResult {
  firstFrame?: Buffer;
  firstFrameRgb?: Buffer;
  thumbnail?: Buffer;
  poster?: Buffer;
  posterRgb?: Buffer;
  filmStrip?: Buffer;
  /** Each film strip tile's frame time, ms, when the strip was written and its frames were known ahead. */
  filmStripTimesMs?: number[];
  cropFrames: CropFrame[];
  /** Captions in the pictures (when the plan looked): true, false, or undefined when the pass saw too few frames. */
  pictureCaptions?: boolean;
}

/**
 * Images are kept when written whole, finished or not; letterboxing is a verdict over the whole video, so its frames
 * are taken only from a pass that finished.
 */
export async function readVideoPass(plan: VideoPassPlan, stderr: string, finished: boolean): Promise<VideoPassResult> {
  const o = plan.outputs;
  const raster = isRaster(COLOUR_RASTER * COLOUR_RASTER * 3);
  const [firstFrame, firstFrameRgb, thumbnail, { poster, posterRgb }, filmStrip] = await Promise.all([
    readComplete(o.firstFrame, isCompleteJpeg),
    readComplete(o.firstFrameRgb, raster),
    readComplete(o.thumbnail, isCompleteJpeg),
    readPoster(o),
    readComplete(o.filmStrip, isCompleteJpeg),
  ]);
  return {
    firstFrame, firstFrameRgb, thumbnail, poster, posterRgb, filmStrip, filmStripTimesMs: filmStrip ? plan.stripTimesMs : [], cropFrames: finished ? parseCropdetect(stderr) : [],
    pictureCaptions: plan.captions ? readPictureCaptions(stderr, finished) : undefined,
  };
}
