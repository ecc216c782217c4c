/*
 * What ffprobe/ffmpeg may do with a downloaded file. The file is the attacker's: every demuxer and decoder it can
 * reach is attack surface, and a header can claim a frame of any size. So each input option list admits
 *  - one protocol: `file` (the download is local; nothing can make ffmpeg open a URL, a pipe or a concat list),
 *  - the containers VAST media files come in (`-format_whitelist`): playlists, image sequences, concat and every
 *    other "follow a reference" or exotic demuxer stay out,
 *  - the decoders of the codecs VAST media files use (`-codec_whitelist`): a stream in any other codec is refused
 *    rather than handed to one of ffmpeg's few hundred rarely-fuzzed decoders,
 *  - frames of at most MAX_PIXELS (`-max_pixels`): a header claiming 16000x16000 is refused by the decoder before it
 *    allocates a 384 MB picture per frame,
 *  - DECODE_THREADS decoder threads and as many filter threads (the default is one per core, plus one: on a large
 *    host that is dozens of threads and frame buffers per pass).
 * The OS limits on the processes themselves (address space, CPU time, file size) are in exec.ts.
 */

/**
 * Demuxers. av_match_list matches any comma-separated alias, so "mov" admits "mov,mp4,m4a,3gp,3g2,mj2" and
 * "matroska" admits "matroska,webm".
 */
export const FORMAT_WHITELIST = "mov,matroska,ogg,mp3,aac,wav,flac,mpegts,flv,avi,asf,mpeg";

/**
 * Decoders, by ffmpeg decoder name (what `-codec_whitelist` matches; ffmpeg picks the first registered decoder of a
 * codec and refuses the stream if that one is not listed, so native and library decoders are both named).
 *  video: H.264, HEVC, VP8, VP9, AV1, MPEG-4 part 2, MPEG-1/2, H.263, Sorenson (FLV1) and VP6 (VAST 1 FLV), Theora,
 *         WMV 1-3 and VC-1 (VAST 2-era video/x-ms-wmv);
 *  audio: AAC, MP3, MP2, AC-3/E-AC-3, Opus, Vorbis, FLAC, ALAC, the PCM of WAV/MOV, WMA, AMR (3GP);
 *  also: MJPEG and PNG (attached cover art) and the caption/subtitle decoders of those containers (MP4 text, CEA-608,
 *        WebVTT, SRT, ASS, DVB/DVD/PGS subtitles, DVB teletext): ffprobe opens every stream's decoder and refuses the
 *        whole file when one is not allowed, so a caption track must not cost a file its measurement.
 */
export const DECODER_WHITELIST = [
  "h264", "hevc", "vp8", "libvpx", "vp9", "libvpx-vp9", "av1", "libdav1d", "libaom-av1", "mpeg4", "mpeg2video",
  "mpeg1video", "mpegvideo", "h263", "flv", "vp6", "vp6f", "vp6a", "theora", "wmv1", "wmv2", "wmv3", "vc1",
  "aac", "aac_fixed", "aac_latm", "mp3float", "mp3", "mp2float", "mp2", "ac3", "ac3_fixed", "eac3", "opus", "libopus",
  "vorbis", "libvorbis", "flac", "alac", "pcm_s16le", "pcm_s16be", "pcm_s24le", "pcm_s24be", "pcm_s32le", "pcm_s32be",
  "pcm_f32le", "pcm_f32be", "pcm_u8", "pcm_alaw", "pcm_mulaw", "wmav1", "wmav2", "wmapro", "amrnb", "amrwb",
  "mjpeg", "png",
  "mov_text", "cc_dec", "webvtt", "subrip", "srt", "text", "ass", "ssa", "dvbsub", "dvdsub", "pgssub", "libzvbi_teletextdec",
].join(",");

/**
 * Largest frame decoded, in pixels: DCI 8K (8192x4320 = 35 389 440), so every real video format up to 8K decodes and
 * the report's 8K definition stays reachable; a frame 7.6x that (16000x16000) is refused. ffmpeg's own ceiling is
 * ~268 M pixels ((w+128)·(h+128) < INT_MAX/8).
 */
export const MAX_PIXELS = 8192 * 4320;

/** Decoder threads per input and filter threads per graph. */
export const DECODE_THREADS = 2;

/** Input options put in front of every `-i` of a downloaded file. */
export const SAFE_INPUT_OPTIONS = [
  "-protocol_whitelist", "file",
  "-format_whitelist", FORMAT_WHITELIST,
  "-codec_whitelist", DECODER_WHITELIST,
  "-max_pixels", String(MAX_PIXELS),
  "-threads", String(DECODE_THREADS),
];

/** Global options of every ffmpeg pass (filter graphs get as few threads as the decoders). */
export const PASS_GLOBAL_OPTIONS = ["-filter_complex_threads", String(DECODE_THREADS)];

/** The decoder ffmpeg refused because it is not on the whitelist ("Codec (ffv1) not on whitelist '…'"). */
export function refusedDecoder(stderr: string): string | undefined {
  const m = stderr.match(/Codec \(([A-Za-z0-9_.-]{1,40})\) not on whitelist/);
  return m?.[1];
}

/**
 * A frame the decoder refused for its size (av_image_check_size2: "Picture size 16000x16000 exceeds specified max
 * pixel count 35389440", or "… is invalid" past ffmpeg's own ceiling): "16000x16000".
 */
export function refusedFrameSize(stderr: string): string | undefined {
  const m = stderr.match(/Picture size (\d{1,6})x(\d{1,6}) (?:exceeds specified max pixel count|is invalid)/);
  return m ? `${m[1]}x${m[2]}` : undefined;
}
