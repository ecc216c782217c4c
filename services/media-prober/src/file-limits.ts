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

/**
 * Decoder threads of the one input of a raw file's video pass that decodes every frame (file-video-pass.ts input 0):
 * ffmpeg's own default (cores + 1, the `ffmpeg -i f -f null -` floor's: 3 on 2 cores) rather than DECODE_THREADS,
 * because that decode is the scan's long pole and H.264/HEVC frame threading keeps only about threads − 1 frames in
 * flight (2 threads left a core idle while the filters ran on the main thread); at most 3, so that an 8K frame's
 * buffers per thread stay inside the 3 GiB address space of exec.ts on any host. The other inputs decode a few
 * frames each and keep DECODE_THREADS.
 */
export const FULL_DECODE_THREADS = Math.max(DECODE_THREADS, Math.min(3, availableParallelism() + 1));

/** FILE_INPUT_OPTIONS with FULL_DECODE_THREADS decoder threads. */
export const FULL_DECODE_INPUT_OPTIONS = [...FILE_INPUT_OPTIONS.slice(0, -1), String(FULL_DECODE_THREADS)];
