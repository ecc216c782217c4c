import { open } from "node:fs/promises";
import type { ProbeStream } from "./ffprobe.ts";

/*
 * What scanVideo's video pass needs to be planned (file-video-pass.ts planFileVideoPass: the stream's index, picture
 * size, codec, frame rate, duration and keyframe times), read from an MP4/MOV file's own index (the `moov` box) in
 * this process, so that the pass can start beside ffprobe instead of after it (file-prober.ts "the early pass").
 *
 * It is a prediction of what ffprobe will say, never a measurement: the prober plans the pass again from ffprobe's
 * description and packet scan, and keeps the early pass only when both plans are the same ffmpeg command, byte for
 * byte; otherwise the early pass is stopped and the pass runs as planned from ffprobe. So every rule below may err
 * (the pass is then just not early), and any file this reader does not fully understand gets `undefined`: edit lists
 * beyond one empty edit and one normal edit, a variable frame rate (ffmpeg estimates r_frame_rate from the frames),
 * a codec not in CODECS, more than one video track, a moov over MAX_MOOV_BYTES or more than MAX_SAMPLES samples.
 * Every loop is bounded by the bytes of the box it reads.
 */

export interface Mp4VideoIndex {
  /** ffmpeg's stream index of the video track (traks are streams in file order). */
  index: number;
  /** ffmpeg's decoder name for the sample entry (avc1 → h264). */
  codecName: string;
  /** Coded size from the sample entry. */
  width: number;
  height: number;
  /** The track's matrix turns the picture a quarter (ffprobe's rotation ±90). */
  quarterTurn: boolean;
  /** As ffprobe states r_frame_rate for a constant-rate MP4 track: timescale / sample duration, reduced. */
  frameRate: string;
  /** The video stream's duration, s (ffprobe's stream `duration`, to its 6 printed decimals). */
  duration: number;
  /** The video's keyframe times on ffmpeg's timeline less the format's start time, s. */
  keyframes: number[];
}

const MAX_MOOV_BYTES = 16 * 1024 * 1024;
/** file-limits.ts MAX_STREAMS: a file with more is refused by ffprobe anyway. */
const MAX_TRAKS = 64;
/** 10 hours at 30 fps, or 2.8 hours at 100 fps: more samples than any master the scan accepts (500 MB) carries. */
const MAX_SAMPLES = 1_080_000;
const CODECS: Record<string, string> = { avc1: "h264", avc3: "h264", hvc1: "hevc", hev1: "hevc", vp09: "vp9", av01: "av1" };

interface Box { type: string; start: number; end: number }

/** The child boxes of buf[from, to), at most 10 000. */
function boxes(buf: Buffer, from: number, to: number): Box[] {
  const out: Box[] = [];
  let at = from;
  while (at + 8 <= to && out.length < 10_000) {
    let size = buf.readUInt32BE(at);
    let head = 8;
    if (size === 1) {
      if (at + 16 > to) break;
      const big = buf.readBigUInt64BE(at + 8);
      if (big > BigInt(to - at)) break;
      size = Number(big);
      head = 16;
    } else if (size === 0) size = to - at;
    if (size < head || at + size > to) break;
    out.push({ type: buf.toString("latin1", at + 4, at + 8), start: at + head, end: at + size });
    at += size;
  }
  return out;
}

const child = (buf: Buffer, b: Box | undefined, type: string) => (b ? boxes(buf, b.start, b.end).find((c) => c.type === type) : undefined);
const path = (buf: Buffer, b: Box | undefined, ...types: string[]) => types.reduce<Box | undefined>((at, t) => child(buf, at, t), b);

/** The moov box's bytes, found by walking the file's top-level boxes; undefined when absent or too large. */
async function readMoov(file: string): Promise<Buffer | undefined> {
  const fh = await open(file, "r");
  try {
    const { size: fileSize } = await fh.stat();
    const header = Buffer.alloc(16);
    let offset = 0;
    for (let n = 0; n < 1000 && offset + 8 <= fileSize; n++) {
      const { bytesRead } = await fh.read(header, 0, 16, offset);
      if (bytesRead < 8) return undefined;
      let size = header.readUInt32BE(0);
      const type = header.toString("latin1", 4, 8);
      if (size === 1) {
        if (bytesRead < 16) return undefined;
        const big = header.readBigUInt64BE(8);
        if (big > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
        size = Number(big);
      } else if (size === 0) size = fileSize - offset;
      if (size < 8 || offset + size > fileSize) return undefined;
      if (type === "moov") {
        if (size > MAX_MOOV_BYTES) return undefined;
        const buf = Buffer.alloc(size);
        const { bytesRead: got } = await fh.read(buf, 0, size, offset);
        return got === size ? buf : undefined;
      }
      offset += size;
    }
    return undefined;
  } finally {
    await fh.close();
  }
}

interface Track {
  handler: string;
  timescale: number;
  /** ffmpeg's timestamp shift from the edit list: pts = dts + ctts - mediaTime + emptyTicks. */
  mediaTime: number;
  emptyTicks: number;
  /** The normal edit's length in the track's timescale; undefined without an edit list. */
  editTicks?: number;
  mdhdDuration: number;
  box: Box;
}

/** The edit list as ffmpeg applies it, or undefined for one this reader does not model. */
function readEdits(buf: Buffer, trak: Box, movieScale: number, timescale: number): { mediaTime: number; emptyTicks: number; editTicks?: number } | undefined {
  const elst = path(buf, trak, "edts", "elst");
  if (!elst) return { mediaTime: 0, emptyTicks: 0 };
  if (elst.end - elst.start < 8) return undefined;
  const version = buf[elst.start]!;
  const count = buf.readUInt32BE(elst.start + 4);
  const entry = version === 1 ? 20 : 12;
  if (count < 1 || count > 2 || elst.start + 8 + count * entry > elst.end) return undefined;
  let emptyTicks = 0;
  let normal: { mediaTime: number; editTicks: number } | undefined;
  for (let i = 0; i < count; i++) {
    const at = elst.start + 8 + i * entry;
    const segment = version === 1 ? Number(buf.readBigUInt64BE(at)) : buf.readUInt32BE(at);
    const mediaTime = version === 1 ? Number(buf.readBigInt64BE(at + 8)) : buf.readInt32BE(at + 4);
    const rate = buf.readInt16BE(at + (version === 1 ? 16 : 8));
    if (rate !== 1) return undefined;
    if (mediaTime === -1) {
      if (i !== 0 || count !== 2) return undefined;
      emptyTicks = Math.round((segment * timescale) / movieScale);
    } else {
      if (normal) return undefined;
      normal = { mediaTime, editTicks: Math.round((segment * timescale) / movieScale) };
    }
  }
  return normal ? { ...normal, emptyTicks } : undefined;
}

/** A file whose first box is `ftyp` (MP4/MOV): the only kind this reader is asked about. */
export function isMp4Head(head: Uint8Array): boolean {
  return head.length >= 8 && Buffer.from(head.subarray(4, 8)).toString("latin1") === "ftyp";
}

/** The video stream as ffprobe would describe it, for planning a pass from the index (both early passes). */
export function streamOfIndex(x: Mp4VideoIndex): ProbeStream {
  return {
    index: x.index, codec_type: "video", codec_name: x.codecName, width: x.width, height: x.height, r_frame_rate: x.frameRate,
    side_data_list: x.quarterTurn ? [{ rotation: 90 }] : [],
  };
}

/** The video track's plan facts, or undefined when the file is not an MP4/MOV this reader fully understands. */
export async function readMp4VideoIndex(file: string): Promise<Mp4VideoIndex | undefined> {
  const moov = await readMoov(file).catch(() => undefined);
  if (!moov) return undefined;
  const top = boxes(moov, 8, moov.length);
  const mvhd = top.find((b) => b.type === "mvhd");
  if (!mvhd) return undefined;
  const movieScale = moov.readUInt32BE(mvhd.start + (moov[mvhd.start] === 1 ? 20 : 12));
  if (!(movieScale > 0)) return undefined;
  // Anything before the last trak that ffmpeg turns into a stream (cover art in udta/meta) would shift the indices.
  const traks = top.filter((b) => b.type === "trak");
  // More streams than the scan accepts: ffprobe refuses the file (file-limits.ts MAX_STREAMS).
  if (traks.length > MAX_TRAKS) return undefined;
  const lastTrak = traks.at(-1);
  if (!lastTrak || top.some((b) => b.type !== "trak" && b.type !== "mvhd" && b.start < lastTrak.start && b.type !== "iods")) return undefined;

  const tracks: Track[] = [];
  for (const trak of traks) {
    const mdhd = path(moov, trak, "mdia", "mdhd");
    const hdlr = path(moov, trak, "mdia", "hdlr");
    if (!mdhd || !hdlr || hdlr.end - hdlr.start < 12) return undefined;
    const v1 = moov[mdhd.start] === 1;
    const timescale = moov.readUInt32BE(mdhd.start + (v1 ? 20 : 12));
    const mdhdDuration = v1 ? Number(moov.readBigUInt64BE(mdhd.start + 24)) : moov.readUInt32BE(mdhd.start + 16);
    if (!(timescale > 0)) return undefined;
    const edits = readEdits(moov, trak, movieScale, timescale);
    if (!edits) return undefined;
    tracks.push({ handler: moov.toString("latin1", hdlr.start + 8, hdlr.start + 12), timescale, mdhdDuration, box: trak, ...edits });
  }
  const videos = tracks.filter((t) => t.handler === "vide");
  if (videos.length !== 1) return undefined;
  const video = videos[0]!;
  const stbl = path(moov, video.box, "mdia", "minf", "stbl");
  const stsd = child(moov, stbl, "stsd");
  if (!stbl || !stsd || stsd.end - stsd.start < 8 + 8 + 28) return undefined;
  const entry = boxes(moov, stsd.start + 8, stsd.end)[0];
  const codecName = entry ? CODECS[entry.type] : undefined;
  if (!entry || !codecName || entry.end - entry.start < 28) return undefined;
  const width = moov.readUInt16BE(entry.start + 24);
  const height = moov.readUInt16BE(entry.start + 26);
  const tkhd = child(moov, video.box, "tkhd");
  if (!tkhd) return undefined;
  // The matrix follows flags, times, track id, duration, reserved, layer, group, volume: a, b at +36/+40 (v0) or +48/+52 (v1).
  const m = tkhd.start + (moov[tkhd.start] === 1 ? 52 : 40);
  if (m + 36 > tkhd.end) return undefined;
  const a = moov.readInt32BE(m);
  const d = moov.readInt32BE(m + 16);
  const quarterTurn = a === 0 && d === 0;

  const timing = readTiming(moov, stbl);
  if (!timing) return undefined;
  const { durations, offsets, sync, samples } = timing;
  // ffmpeg states r_frame_rate from stts only for one sample duration (the last sample's may differ).
  if (!(durations.length === 1 || (durations.length === 2 && durations[1]![0] === 1))) return undefined;
  const frameRate = reduce(video.timescale, durations[0]![1]);
  if (!frameRate) return undefined;

  // Keyframe presentation times, ticks.
  const shift = video.emptyTicks - video.mediaTime;
  const keyTicks: number[] = [];
  let dts = 0;
  let s = 0;
  let oRun = 0;
  let oLeft = offsets[0]?.[0] ?? 0;
  let syncAt = 0;
  for (const [count, delta] of durations) {
    for (let i = 0; i < count; i++, s++) {
      let offset = 0;
      if (offsets.length) {
        while (oLeft === 0 && oRun + 1 < offsets.length) oLeft = offsets[++oRun]![0];
        offset = offsets[oRun]?.[1] ?? 0;
        oLeft--;
      }
      const isSync = sync ? sync[syncAt] === s + 1 : true;
      if (isSync) {
        keyTicks.push(dts + offset + shift);
        if (sync) syncAt++;
      }
      dts += delta;
    }
  }
  if (s !== samples) return undefined;
  if (video.mediaTime === 0 && offsets.some(([, o]) => o !== 0)) return undefined; // B-frames without an edit list: not modelled
  // ffmpeg's start_time: each track starts where its edit list puts its first presented sample (the samples before are
  // discarded; an AAC track's priming, the B-frame delay), a track without one at 0; the format's is the earliest.
  const start = Math.min(...tracks.map((t) => t.emptyTicks / t.timescale));
  const startS = ffprobeSeconds(start);
  const tb = 1 / video.timescale;
  const keyframes = keyTicks.map((t) => ffprobeSeconds(t * tb) - startS);
  const durationTicks = video.editTicks ?? video.mdhdDuration;
  return {
    index: tracks.indexOf(video), codecName, width, height, quarterTurn, frameRate,
    duration: ffprobeSeconds(durationTicks * tb), keyframes,
  };
}

/** A time as ffprobe prints it (`%f`: 6 decimals) and the prober reads it back. */
const ffprobeSeconds = (s: number) => Number(s.toFixed(6));

function reduce(num: number, den: number): string | undefined {
  if (!(num > 0 && den > 0)) return undefined;
  let [x, y] = [num, den];
  while (y) [x, y] = [y, x % y];
  return `${num / x}/${den / x}`;
}

/** stts runs, ctts runs, stss sample numbers (undefined: every sample is a keyframe), sample count. */
function readTiming(buf: Buffer, stbl: Box): { durations: Array<[number, number]>; offsets: Array<[number, number]>; sync?: Uint32Array; samples: number } | undefined {
  const runs = (type: string, signed: boolean): Array<[number, number]> | undefined => {
    const b = child(buf, stbl, type);
    if (!b) return type === "stts" ? undefined : [];
    const n = buf.readUInt32BE(b.start + 4);
    if (b.start + 8 + n * 8 > b.end) return undefined;
    const out: Array<[number, number]> = [];
    let total = 0;
    for (let i = 0; i < n; i++) {
      const count = buf.readUInt32BE(b.start + 8 + i * 8);
      total += count;
      if (total > MAX_SAMPLES) return undefined;
      // ffmpeg reads ctts offsets as signed whatever the box version.
      out.push([count, signed ? buf.readInt32BE(b.start + 12 + i * 8) : buf.readUInt32BE(b.start + 12 + i * 8)]);
    }
    return out;
  };
  const durations = runs("stts", false);
  const offsets = runs("ctts", true);
  if (!durations || !offsets || durations.length === 0) return undefined;
  const samples = durations.reduce((n, [c]) => n + c, 0);
  if (offsets.length && offsets.reduce((n, [c]) => n + c, 0) !== samples) return undefined;
  const stss = child(buf, stbl, "stss");
  let sync: Uint32Array | undefined;
  if (stss) {
    const n = buf.readUInt32BE(stss.start + 4);
    if (n > samples || stss.start + 8 + n * 4 > stss.end) return undefined;
    sync = new Uint32Array(n);
    for (let i = 0; i < n; i++) sync[i] = buf.readUInt32BE(stss.start + 8 + i * 4);
    for (let i = 1; i < n; i++) if (sync[i]! <= sync[i - 1]!) return undefined;
  }
  return { durations, offsets, sync, samples };
}
