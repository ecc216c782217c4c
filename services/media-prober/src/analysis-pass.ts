import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runTool, ToolError, type ToolOptions } from "./exec.ts";
import { SAFE_INPUT_OPTIONS } from "./ffprobe.ts";
import { parseEbur128Summary, type LoudnessFacts } from "./loudness.ts";
import { parseCropdetect, type CropFrame } from "./letterbox.ts";

/*
 * Why the processes are what they are (decode once where you can):
 *
 *  1. ffprobe (metadata): streams and format. Needed before decoding, because the decode graph depends on it: which
 *     stream is the video (not cover art), whether there is audio, and the duration (poster time, film-strip rate).
 *  2. ffprobe (packets): demux only, no decoding; per-stream packet sizes and times for bit rates ffprobe does not state
 *     (WebM) and the CBR/VBR verdict. Runs concurrently with 3, on the second core.
 *  3. ffmpeg, ONE decode of the video and the audio. The graph fans the decoded frames out with split/asplit:
 *       video → first visible frame (blackframe + metadata select, within the first 10 s) → first.jpg, thumb.jpg, raw
 *             → frame at mid-duration → poster.jpg, raw (for its colour)
 *             → fps=N/duration → tile=Nx1 → strip.jpg (film strip)
 *             → fps=5 → cropdetect (per frame, to the log) → null
 *       audio → ebur128=peak=true (Summary to the log) → null
 *             → aresample=8000 → showwavespic → wave.png
 *     Image outputs stop after their frame (-frames:v 1); the others run to the end, which loudness needs anyway.
 *  4. Only when no frame in the first 10 s is visible (all black): a tiny ffmpeg that scales the poster JPG (our own
 *     file, not the download) into the thumbnail. No second decode of the media in any case.
 */

export interface PassPlanInput {
  input: string;
  outDir: string;
  video?: { index: number; duration: number };
  audio?: { index: number };
  /** Frames in the film strip. */
  stripFrames?: number;
}

export interface PassOutputs {
  firstFrame: string;
  firstFrameRgb: string;
  thumbnail: string;
  poster: string;
  posterRgb: string;
  filmStrip: string;
  audioWave: string;
}

export interface PassPlan {
  args: string[];
  outputs: PassOutputs;
}

/** How far into the video the first visible frame is looked for. */
export const FIRST_FRAME_WINDOW_S = 10;
/** Raster size for the dominant-colour computation. */
export const COLOUR_RASTER = 32;

export function planAnalysisPass(p: PassPlanInput): PassPlan {
  const o: PassOutputs = {
    firstFrame: join(p.outDir, "first.jpg"),
    firstFrameRgb: join(p.outDir, "first.rgb"),
    thumbnail: join(p.outDir, "thumb.jpg"),
    poster: join(p.outDir, "poster.jpg"),
    posterRgb: join(p.outDir, "poster.rgb"),
    filmStrip: join(p.outDir, "strip.jpg"),
    audioWave: join(p.outDir, "wave.png"),
  };
  const graph: string[] = [];
  const maps: string[] = [];
  const image = (label: string, path: string, q: number) =>
    maps.push("-map", `[${label}]`, "-frames:v", "1", "-q:v", String(q), "-f", "image2", "-update", "1", path);
  const raw = (label: string, path: string) =>
    maps.push("-map", `[${label}]`, "-frames:v", "1", "-f", "rawvideo", path);
  const sink = (label: string) => maps.push("-map", `[${label}]`, "-f", "null", "-");

  if (p.video) {
    const n = p.stripFrames ?? 10;
    const d = p.video.duration;
    const stripRate = d > 0 ? `${n}/${d.toFixed(3)}` : "1";
    const mid = d > 0 ? (d / 2).toFixed(3) : "0";
    const rgb = `scale=${COLOUR_RASTER}:${COLOUR_RASTER},format=rgb24`;
    graph.push(
      `[0:${p.video.index}]split=4[vfirst][vposter][vstrip][vcrop]`,
      // blackframe with amount=0 tags every frame with its share of black pixels; keep frames under 98%.
      `[vfirst]trim=end=${FIRST_FRAME_WINDOW_S},blackframe=amount=0:threshold=32,` +
        `metadata=mode=select:key=lavfi.blackframe.pblack:value=98:function=less,` +
        // trim after one frame: the EOF closes this branch back to split, so no later frame is analysed or scaled.
        `trim=end_frame=1,scale=w='min(1920,iw)':h=-2,split=3[first][fthumb][fcol]`,
      `[fthumb]scale=w='min(320,iw)':h=-2[thumb]`,
      `[fcol]${rgb}[firstrgb]`,
      `[vposter]select='gte(t,${mid})',trim=end_frame=1,scale=w='min(1920,iw)':h=-2,split=2[poster][pcol]`,
      `[pcol]${rgb}[posterrgb]`,
      `[vstrip]fps=${stripRate},scale=w=-2:h='min(120,ih)',tile=${n}x1[strip]`,
      `[vcrop]fps=5,cropdetect=limit=24:round=2:reset=1:skip=0[crop]`,
    );
    image("first", o.firstFrame, 2);
    image("thumb", o.thumbnail, 4);
    raw("firstrgb", o.firstFrameRgb);
    image("poster", o.poster, 2);
    raw("posterrgb", o.posterRgb);
    image("strip", o.filmStrip, 4);
    sink("crop");
  }
  if (p.audio) {
    graph.push(
      `[0:${p.audio.index}]asplit=2[aloud][awave]`,
      // framelog=verbose keeps per-frame lines out of the info log; the Summary is still logged at info.
      `[aloud]ebur128=peak=true:framelog=verbose[loud]`,
      // 8 kHz is plenty for a 1280 px picture and bounds showwavespic's memory (it keeps all samples until the end).
      `[awave]aresample=8000,showwavespic=s=1280x240:colors=0x2f6fde|0x2f6fde|0x2f6fde|0x2f6fde|0x2f6fde|0x2f6fde:filter=peak:draw=full[wave]`,
    );
    sink("loud");
    maps.push("-map", "[wave]", "-frames:v", "1", "-f", "image2", "-update", "1", o.audioWave);
  }
  const args = [
    "-hide_banner", "-nostdin", "-nostats", "-v", "info",
    ...SAFE_INPUT_OPTIONS, "-i", p.input,
    "-filter_complex", graph.join(";"),
    ...maps,
    "-y",
  ];
  return { args, outputs: o };
}

export interface PassResult {
  firstFrame?: Buffer;
  firstFrameRgb?: Buffer;
  thumbnail?: Buffer;
  poster?: Buffer;
  posterRgb?: Buffer;
  filmStrip?: Buffer;
  audioWave?: Buffer;
  loudness?: LoudnessFacts;
  cropFrames: CropFrame[];
}

/** How the pass ended: completed, or cut short (what it had written completely by then is kept). */
export interface PassOutcome {
  result: PassResult;
  /** Set when ffmpeg failed or was killed: the client-safe reason; loudness and letterboxing are then not measured. */
  failure?: string;
}

/**
 * Runs the pass. A pass that fails or times out still yields every image it had finished writing (checked for a
 * complete JPEG/PNG/raster, never a half-written file): those frames were measured. Loudness (ebur128 prints its
 * Summary only when the stream ends) and letterboxing (a verdict over the whole video) are not taken from a pass that
 * did not finish. Only an abort rejects.
 */
export async function runAnalysisPass(plan: PassPlan, opts: ToolOptions): Promise<PassOutcome> {
  let stderr = "";
  let failure: string | undefined;
  try {
    stderr = (await runTool("ffmpeg", plan.args, opts)).stderr;
  } catch (e) {
    if (opts.signal?.aborted) throw e;
    failure = e instanceof ToolError && e.reason === "timeout"
      ? `media analysis timed out after ${Number((opts.timeoutMs / 1000).toFixed(3))} s`
      : "media could not be decoded";
  }
  const o = plan.outputs;
  const raster = COLOUR_RASTER * COLOUR_RASTER * 3;
  const [firstFrame, firstFrameRgb, thumbnail, poster, posterRgb, filmStrip, audioWave] = await Promise.all([
    readComplete(o.firstFrame, isCompleteJpeg),
    readComplete(o.firstFrameRgb, (b) => b.length === raster),
    readComplete(o.thumbnail, isCompleteJpeg),
    readComplete(o.poster, isCompleteJpeg),
    readComplete(o.posterRgb, (b) => b.length === raster),
    readComplete(o.filmStrip, isCompleteJpeg),
    readComplete(o.audioWave, isCompletePng),
  ]);
  const result: PassResult = {
    firstFrame, firstFrameRgb, thumbnail, poster, posterRgb, filmStrip, audioWave,
    loudness: failure ? undefined : parseEbur128Summary(stderr),
    cropFrames: failure ? [] : parseCropdetect(stderr),
  };
  return failure ? { result, failure } : { result };
}

async function readComplete(path: string, complete: (b: Buffer) => boolean): Promise<Buffer | undefined> {
  const b = await readFile(path).catch(() => undefined);
  return b && b.length > 0 && complete(b) ? b : undefined;
}

/** SOI at the start and EOI at the end: ffmpeg killed while writing leaves a file without its EOI. */
export function isCompleteJpeg(b: Buffer): boolean {
  return b.length > 4 && b[0] === 0xff && b[1] === 0xd8 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;
}

/** PNG signature and the IEND chunk as the last 12 bytes. */
export function isCompletePng(b: Buffer): boolean {
  return b.length > 20 && b.readUInt32BE(0) === 0x89504e47 && b.subarray(b.length - 8, b.length - 4).toString("latin1") === "IEND";
}

/** Thumbnail from an existing JPG (the poster), for videos with no visible frame at the start. */
export async function thumbnailFromImage(jpg: string, out: string, opts: ToolOptions): Promise<Buffer | undefined> {
  await runTool(
    "ffmpeg",
    [
      "-hide_banner", "-nostdin", "-v", "error", "-protocol_whitelist", "file", "-f", "image2", "-i", jpg,
      "-vf", "scale=w='min(320,iw)':h=-2", "-frames:v", "1", "-q:v", "4", "-f", "image2", "-update", "1", out, "-y",
    ],
    opts,
  );
  return readFile(out).catch(() => undefined);
}
