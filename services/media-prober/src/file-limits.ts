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
