import type { ProbeStream } from "./ffprobe.ts";
import { parseRate } from "./video-info.ts";

/*
 * Facts of a raw video or audio file read from ffprobe's stream description and from the packet scan (demux only):
 * nothing here decodes a frame. What needs decoded pictures or samples (scan type, black, silence, freezes, loudness,
 * clipping) is in the file passes.
 */

/**
 * Chroma subsampling of a pixel format: "4:2:0", "4:2:2", "4:4:4", "4:1:1", "4:4:0", "4:1:0"; "" for RGB, gray and
 * formats without a luma/chroma split (there is nothing subsampled to name).
 */
export function chromaSubsampling(pixFmt: string | undefined): string {
  const pf = pixFmt ?? "";
  const planar = /^yuva?j?(420|422|444|411|440|410)p/.exec(pf);
  if (planar) return `${planar[1]![0]}:${planar[1]![1]}:${planar[1]![2]}`;
  // Semi-planar and packed layouts, by family: NV12/NV21/P010/P016 are 4:2:0; NV16/NV20/P210/P216, YUYV/UYVY/Y210 and
  // v210 are 4:2:2; NV24/NV42/P410/P416, AYUV/VUYA/Y410/XV30 are 4:4:4.
  if (/^(nv12|nv21|p010|p012|p016)/.test(pf)) return "4:2:0";
  if (/^(nv16|nv20|p210|p212|p216|yuyv422|yvyu422|uyvy422|y210|y212|v210)/.test(pf)) return "4:2:2";
  if (/^(nv24|nv42|p410|p412|p416|ayuv|vuya|vuyx|y410|y412|xv30|xv36|v30x)/.test(pf)) return "4:4:4";
  if (/^uyyvyy411/.test(pf)) return "4:1:1";
  return "";
}

/** A colour tag as ffprobe names it, or "" when the stream leaves it unspecified. */
export function colourTag(v: string | undefined): string {
  return !v || v === "unknown" || v === "reserved" || v === "unspecified" ? "" : v;
}

/** PQ (SMPTE ST 2084, HDR10/Dolby Vision) and HLG (ARIB STD-B67) are the high-dynamic-range transfers. */
export function isHdrTransfer(transfer: string | undefined): boolean {
  return transfer === "smpte2084" || transfer === "arib-std-b67";
}

/** The stream's frame rate as the exact fraction it states ("30000/1001"); "" when it states none. */
export function frameRateFraction(s: ProbeStream): string {
  for (const r of [s.avg_frame_rate, s.r_frame_rate]) if (r && parseRate(r) > 0) return r;
  return "";
}

/** Scan type the header states: ffprobe's field_order tt/bb/tb/bt are interlaced, progressive is progressive. */
export function headerScanType(s: ProbeStream): "progressive" | "interlaced" | "" {
  const f = s.field_order ?? "";
  if (f === "progressive") return "progressive";
  if (["tt", "bb", "tb", "bt"].includes(f)) return "interlaced";
  return "";
}

/**
 * constant or variable, from the video packets' presentation times: constant when every interval between consecutive
 * frames is within max(1 %, 1.5 time-base ticks) of the median interval (containers with a coarse time base —
 * Matroska's 1 ms — store 29.97 fps as alternating 33/34 ms, which is still constant). Needs three frames, else "".
 * The header's frame rate cannot tell: MP4 has no CFR flag, and r_frame_rate is a guess ffmpeg makes.
 */
export function frameRateMode(pts: number[], timeBase: string | undefined): "constant" | "variable" | "" {
  const times = [...new Set(pts.filter((t) => Number.isFinite(t)))].sort((a, b) => a - b);
  if (times.length < 3) return "";
  const deltas: number[] = [];
  for (let i = 1; i < times.length; i++) deltas.push(times[i]! - times[i - 1]!);
  const median = [...deltas].sort((a, b) => a - b)[Math.floor(deltas.length / 2)]!;
  if (!(median > 0)) return "";
  const tick = parseRate(timeBase) || 0;
  // ffprobe prints times to the microsecond: that rounding is allowed for too.
  const tolerance = Math.max(0.01 * median, 1.5 * tick, 2e-6);
  return deltas.every((d) => Math.abs(d - median) <= tolerance) ? "constant" : "variable";
}

/**
 * The longest gap between consecutive keyframes, ms, from the demuxer's key flags; the gap from the last keyframe to
 * the end of the stream counts too (a trafficker's "max GOP"), so a stream with one keyframe has its duration here.
 * undefined without keyframes or an end.
 */
export function keyframeIntervalMs(keyframes: number[], streamStart: number, streamEnd: number): number | undefined {
  const keys = [...new Set(keyframes.filter((t) => Number.isFinite(t)))].sort((a, b) => a - b);
  if (keys.length === 0 || !(streamEnd > streamStart)) return undefined;
  let max = 0;
  for (let i = 1; i < keys.length; i++) max = Math.max(max, keys[i]! - keys[i - 1]!);
  max = Math.max(max, streamEnd - keys[keys.length - 1]!);
  return Math.round(max * 1000);
}

/**
 * Bits per audio sample as stored: the decoder's raw sample size (FLAC, ALAC, PCM), else the PCM sample size; 0 for a
 * lossy codec, whose decoded sample format (float) says nothing about the source.
 */
export function audioBitDepth(s: ProbeStream): number {
  const raw = Number(s.bits_per_raw_sample);
  if (Number.isInteger(raw) && raw > 0) return raw;
  const pcm = Number(s.bits_per_sample);
  if ((s.codec_name ?? "").startsWith("pcm_") && Number.isInteger(pcm) && pcm > 0) return pcm;
  return 0;
}
