import type { ProbeFormat, ProbeStream } from "./ffprobe.ts";

/** The stream measured as "the video": the first real video stream, skipping cover art (attached pictures). */
export function pickVideoStream(streams: ProbeStream[]): ProbeStream | undefined {
  const candidates = streams.filter((s) => s.codec_type === "video" && !s.disposition?.attached_pic);
  return candidates.find((s) => s.disposition?.default) ?? candidates[0];
}

export function pickAudioStream(streams: ProbeStream[]): ProbeStream | undefined {
  const candidates = streams.filter((s) => s.codec_type === "audio");
  return candidates.find((s) => s.disposition?.default) ?? candidates[0];
}

/** Rotation in degrees from the display matrix (ffmpeg ≥ 5) or the legacy `rotate` tag, normalised to (-180, 180]. */
export function rotationOf(s: ProbeStream): number {
  let r = 0;
  const fromMatrix = s.side_data_list?.find((d) => typeof d.rotation === "number")?.rotation;
  if (typeof fromMatrix === "number") r = fromMatrix;
  else if (s.tags?.rotate !== undefined && Number.isFinite(Number(s.tags.rotate))) r = -Number(s.tags.rotate);
  r = Math.round(r) % 360;
  if (r > 180) r -= 360;
  if (r <= -180) r += 360;
  return r;
}

/** Size as displayed: stored size with width and height swapped for a quarter-turn rotation. */
export function displaySize(s: ProbeStream): { width: number; height: number } {
  const w = s.width ?? 0;
  const h = s.height ?? 0;
  return Math.abs(rotationOf(s)) === 90 ? { width: h, height: w } : { width: w, height: h };
}

/** "30000/1001" → 29.97; 0 for "0/0" or garbage. */
export function parseRate(r: string | undefined): number {
  if (!r) return 0;
  const [n, d] = r.split("/").map(Number);
  if (d === undefined) return Number.isFinite(n) ? n! : 0;
  if (!Number.isFinite(n) || !Number.isFinite(d) || d === 0) return 0;
  return n! / d;
}

export function frameRate(s: ProbeStream): number {
  const r = parseRate(s.avg_frame_rate) || parseRate(s.r_frame_rate);
  return Math.round(r * 1000) / 1000;
}

const COMMON_RATIOS: Array<[number, number]> = [
  [16, 9], [9, 16], [4, 3], [3, 4], [1, 1], [21, 9], [9, 21], [3, 2], [2, 3], [5, 4], [4, 5], [2, 1], [1, 2],
];

/**
 * Display aspect ratio as "W:H". The pixel aspect ratio (SAR) is honoured, then the ratio is reduced; when it lies
 * within 1% of a common ratio (854x480, 50x28 → 16:9) the common name is used, because that is what the encoder
 * aimed at and what spec sets test against. Otherwise the exact reduced ratio is given.
 */
export function aspectRatio(width: number, height: number, sar?: string): string {
  if (width <= 0 || height <= 0) return "";
  const pixelAspect = parseRate(sar?.replace(":", "/")) || 1;
  const dw = Math.round(width * pixelAspect);
  const value = dw / height;
  for (const [a, b] of COMMON_RATIOS) {
    if (Math.abs(value / (a / b) - 1) <= 0.01) return `${a}:${b}`;
  }
  const g = gcd(dw, height);
  return `${dw / g}:${height / g}`;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * Definition class from the display size. The number of "lines" is the larger of the short side and the long side
 * scaled to 16:9 (long × 9/16), so a cinema-cropped 1920x800 counts as 1080 lines (FHD), a portrait 1080x1920 as 1080,
 * and 640x480 as 480 (SD). Classes: SD < 720 ≤ HD < 1080 ≤ FHD < 1440 ≤ QHD < 2160 ≤ 4K < 4320 ≤ 8K.
 */
export function definitionOf(width: number, height: number): string {
  if (width <= 0 || height <= 0) return "";
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const lines = Math.max(short, Math.round((long * 9) / 16));
  if (lines >= 4320) return "8K";
  if (lines >= 2160) return "4K";
  if (lines >= 1440) return "QHD";
  if (lines >= 1080) return "FHD";
  if (lines >= 720) return "HD";
  return "SD";
}

/** Bits per colour component: bits_per_raw_sample when the decoder states it, else read from the pixel format. */
export function bitDepth(s: ProbeStream): number {
  const raw = Number(s.bits_per_raw_sample);
  if (Number.isInteger(raw) && raw > 0) return raw;
  const pf = s.pix_fmt ?? "";
  if (!pf) return 0;
  const m = /(?:p|gray|y)(9|10|12|14|16)(?:le|be)?$/.exec(pf) ?? /^p0(10|12|16)(?:le|be)?$/.exec(pf);
  if (m) return Number(m[1]);
  if (/^(rgb|bgr)48|^(rgba|bgra)64/.test(pf)) return 16;
  if (/^(x2rgb10|x2bgr10|v210|y210)/.test(pf)) return 10;
  return 8;
}

/**
 * Seconds: the stream's own duration, else Matroska's per-stream DURATION tag ("00:00:30.020000000"), else the
 * container's duration (WebM from browsers often has only that).
 */
export function streamDuration(s: ProbeStream, format: ProbeFormat): number {
  const own = Number(s.duration);
  if (Number.isFinite(own) && own > 0) return own;
  const tag = s.tags?.DURATION ?? s.tags?.["DURATION-eng"];
  if (tag) {
    const m = /^(\d+):(\d+):(\d+(?:\.\d+)?)$/.exec(tag);
    if (m) return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  }
  const f = Number(format.duration);
  return Number.isFinite(f) && f > 0 ? f : 0;
}

/**
 * Bits per second of one stream: the stream's stated bit_rate, else Matroska's BPS statistics tag, else its packet
 * bytes divided by its duration (measured from the demuxed packets).
 */
export function streamBitRate(s: ProbeStream, duration: number, packets: Array<[number, number]> | undefined): number {
  const stated = Number(s.bit_rate);
  if (Number.isFinite(stated) && stated > 0) return Math.round(stated);
  const bps = Number(s.tags?.BPS ?? s.tags?.["BPS-eng"]);
  if (Number.isFinite(bps) && bps > 0) return Math.round(bps);
  if (packets?.length && duration > 0) {
    const bytes = packets.reduce((sum, [, size]) => sum + size, 0);
    return Math.round((bytes * 8) / duration);
  }
  return 0;
}

/**
 * "CBR" or "VBR" from the stream's bytes per one-second window (demuxed packets, whole windows only): constant when
 * every window is within ±15% of the mean. Needs at least three whole windows, otherwise "" (not derivable). This is
 * a measurement of the delivered file, not of the encoder's declared mode (which MP4 does not carry reliably).
 */
export function bitRateMode(packets: Array<[number, number]> | undefined): string {
  if (!packets?.length) return "";
  let start = Infinity;
  let end = -Infinity;
  for (const [t] of packets) {
    if (!Number.isFinite(t)) continue;
    if (t < start) start = t;
    if (t > end) end = t;
  }
  if (!Number.isFinite(start)) return "";
  const whole = Math.floor(end - start);
  if (whole < 3) return "";
  const windows = new Array<number>(whole).fill(0);
  for (const [t, size] of packets) {
    if (!Number.isFinite(t)) continue;
    const w = Math.floor(t - start);
    if (w < whole) windows[w] += size;
  }
  const mean = windows.reduce((a, b) => a + b, 0) / whole;
  if (mean <= 0) return "";
  return windows.every((b) => Math.abs(b - mean) <= 0.15 * mean) ? "CBR" : "VBR";
}
