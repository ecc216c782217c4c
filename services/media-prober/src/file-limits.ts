import { availableParallelism } from "node:os";
import { DECODE_THREADS, DECODER_WHITELIST, FORMAT_WHITELIST, MAX_PIXELS } from "./decode-limits.ts";

/*
 * What ffprobe/ffmpeg may do with an uploaded video or audio file: the VAST media restrictions (decode-limits.ts) plus
 *  - ProRes and DNxHD/DNxHR, the mezzanine codecs CTV masters are delivered in (MOV); both are intra-only decoders
 *    that ship in every broadcast tool chain;
 *  - at most MAX_STREAMS streams (`-max_streams`, a demuxer option: the container is refused while its header is read,
 *    before any decoder is opened — ffmpeg's own default is 1000);
 *  - at most MAX_SIDE pixels per side, checked on ffprobe's description before anything is decoded (MAX_PIXELS alone
 *    admits a 35 389 440 x 1 "video").
 */

export const FILE_DECODER_WHITELIST = `${DECODER_WHITELIST},prores,dnxhd`;

/** A master with one video, eight mono audio tracks, timecode and captions has a dozen; nothing real has 64. */
export const MAX_STREAMS = 64;

/** DCI 8K's long side. */
export const MAX_SIDE = 8192;

export const FILE_INPUT_OPTIONS = [
  "-protocol_whitelist", "file",
  "-format_whitelist", FORMAT_WHITELIST,
  "-codec_whitelist", FILE_DECODER_WHITELIST,
  "-max_pixels", String(MAX_PIXELS),
  "-max_streams", String(MAX_STREAMS),
  "-threads", String(DECODE_THREADS),
];

/** The demuxer's refusal of a file with more streams than allowed ("Number of streams exceeds max_streams parameter"). */
export function refusedStreamCount(stderr: string): boolean {
  return /Number of streams exceeds max_streams parameter/.test(stderr);
}

/** 2560x1440: the largest picture decoded with more frame threads (fullDecodeThreads, fileVideoPassDecodeThreads). */
export const SMALL_FULL_DECODE_PIXELS = 2560 * 1440;

/**
 * Decoder threads of a full decode beside per-frame filters: the VAST flash pass (flash-pass.ts), and the base of
 * scanVideo's video pass's input 0 (fileVideoPassDecodeThreads below gives that one more up to 1440p). At least
 * ffmpeg's own default (cores + 1, the `ffmpeg -i f -f null -` floor's: 3 on 2 cores) rather than DECODE_THREADS,
 * because that decode is the scan's long pole and H.264/HEVC frame threading keeps only about threads − 1 frames in
 * flight. Pictures of at most SMALL_FULL_DECODE_PIXELS (1440p and below) get one thread more
 * (cores + 2, at most 4): the pass's filters run on ffmpeg's main thread (FILE_VIDEO_PASS_GLOBAL_OPTIONS), and while
 * it filters one frame, a 4th frame in flight keeps both cores decoding. On the bench's 30 s 1080p file (2026-11-27,
 * 4 pairs, bench/RESULTS.md): 5.42 → 4.69 s wall (floor 4.05 s), CPU no higher; the same outputs byte for byte
 * (frame threading is exact). Larger pictures keep at most 3, so that an 8K frame's buffers per thread stay inside
 * the 3 GiB address space of exec.ts on any host. The other inputs decode a few frames each and keep DECODE_THREADS.
 */
export function fullDecodeThreads(pixels: number): number {
  const most = pixels > 0 && pixels <= SMALL_FULL_DECODE_PIXELS ? 4 : 3;
  return Math.max(DECODE_THREADS, Math.min(most, availableParallelism() + (most === 4 ? 2 : 1)));
}

/** The most decoder threads input 0 of scanVideo's video pass gets (fileVideoPassDecodeThreads). */
export const FILE_VIDEO_PASS_MOST_THREADS = 6;

/**
 * Decoder threads of input 0 of scanVideo's video pass (file-video-pass.ts), the one decode of every frame beside a
 * dozen frame consumers: for pictures of at most SMALL_FULL_DECODE_PIXELS, 3 per core and at most
 * FILE_VIDEO_PASS_MOST_THREADS (6 on 2 cores), else fullDecodeThreads. That pass's main thread filters every frame (the
 * unthreaded filters, half the 480 px scale) while a filter thread does the scale's other half, so 4 frame threads kept
 * fewer frames in flight than both cores could decode; the decoder's frame threads mostly wait on one another's
 * reference rows, and two more keep a core busy through those waits. Frame threading is exact: the same images, grid
 * and log lines byte for byte with 4, 6 and 8 threads. Measured on the bench's 30 s 1080p file, 2 cores, 2026-11-27
 * (bench/RESULTS.md, branch video6): the pass with 4 → 6 threads faster in 20 of 24 pairs (wall median 3.25 → 3.04 s
 * against a 2.61 s floor in one set of 6), CPU the same (4.94 → 4.99 s), RSS 219 → 232 MB; 8 threads no faster than 6,
 * and with 6 a third filter thread (the scale in 3 slices) slower (2 of 8 pairs, CPU 5.59 → 5.82 s).
 * Not measured on more cores (the cap bounds the memory per pass). The VAST flash pass keeps fullDecodeThreads (its
 * filters are one small scale, not measured with more threads).
 */
export function fileVideoPassDecodeThreads(pixels: number): number {
  const full = fullDecodeThreads(pixels);
  if (!(pixels > 0 && pixels <= SMALL_FULL_DECODE_PIXELS)) return full;
  return Math.max(full, Math.min(FILE_VIDEO_PASS_MOST_THREADS, availableParallelism() * 3));
}

/** FILE_INPUT_OPTIONS with fileVideoPassDecodeThreads decoder threads, for a picture of this many pixels (0 = unknown). */
export function fileVideoPassInputOptions(pixels: number): string[] {
  return [...FILE_INPUT_OPTIONS.slice(0, -1), String(fileVideoPassDecodeThreads(pixels))];
}

/**
 * Global options of the VAST flash pass (flash-pass.ts), and of the raw file's video pass until 2026-11-27 14:30Z
 * (that pass now slices its 480 px scale alone: FILE_VIDEO_PASS_FILTER_THREADS below): filters on ffmpeg's main thread, unthreaded
 * (`-filter_complex_threads 1`, where the other passes give their graphs DECODE_THREADS). Every frame of input 0 goes
 * through a dozen filters (the 480 px area scale, black, freeze, crop, interlace, the flash grid); slice-threaded, each
 * handed every frame to filter threads and waited for them while the 3 decoder threads held both cores, so the main
 * thread, which feeds the decoders, stalled once per filter per frame. Measured on the bench's 30 s 1080p file
 * (2026-11-27, 7 pairs, bench/RESULTS.md): the pass 5.77 → 5.19 s wall median (floor `ffmpeg -i f -f null -` 4.46 s),
 * CPU 8.1–8.4 → 7.5–7.8 s; the filters' outputs (logs, images, grid frames) byte for byte the same.
 */
export const FILE_VIDEO_PASS_GLOBAL_OPTIONS = ["-filter_complex_threads", "1"];

/**
 * Filter threads of the raw file's video pass (file-video-pass.ts), used by one filter: the 480 px area scale of every
 * frame (SMALL_SCALE there), the biggest piece of the pass's own work (0.66 CPU-s of ~1.4 over the bare decode on the
 * bench's 30 s 1080p file, 2026-11-27 14:30Z); every other slice-threaded filter of that graph is pinned to
 * `threads=1` (FILTER_UNTHREADED), so they still run inline as FILE_VIDEO_PASS_GLOBAL_OPTIONS says why. Unthreaded,
 * the scale ran on ffmpeg's main thread, which also feeds input 0's decoders, so its ~0.7 ms a frame was serial;
 * in two slices half of it runs on a filter thread beside the main thread. swscale's slices are exact (each output
 * row from the same input rows and coefficients): the same logs, images and grid frames byte for byte. Measured in the
 * media-prober README ("Performance: what is left", 2026-11-27 14:30Z).
 */
export const FILE_VIDEO_PASS_FILTER_THREADS = DECODE_THREADS;
export const FILE_VIDEO_PASS_GRAPH_OPTIONS = ["-filter_complex_threads", String(FILE_VIDEO_PASS_FILTER_THREADS)];
/** The generic filter option that keeps one filter unthreaded in a graph that has threads (FILE_VIDEO_PASS_GRAPH_OPTIONS). */
export const FILTER_UNTHREADED = "threads=1";
