import { SAFE_INPUT_OPTIONS } from "./decode-limits.ts";
import { runTool, type ToolOptions } from "./exec.ts";

export interface ProbeStream {
  index: number;
  codec_name?: string;
  codec_type?: string;
  profile?: string;
  width?: number;
  height?: number;
  sample_aspect_ratio?: string;
  display_aspect_ratio?: string;
  pix_fmt?: string;
  bits_per_raw_sample?: string;
  r_frame_rate?: string;
  avg_frame_rate?: string;
  duration?: string;
  bit_rate?: string;
  nb_frames?: string;
  sample_rate?: string;
  channels?: number;
  channel_layout?: string;
  disposition?: Record<string, number>;
  tags?: Record<string, string>;
  side_data_list?: Array<Record<string, unknown>>;
  /** progressive, tt, bb, tb, bt or unknown. */
  field_order?: string;
  color_space?: string;
  color_transfer?: string;
  color_primaries?: string;
  /** "1/15360": the unit of the stream's timestamps. */
  time_base?: string;
  bits_per_sample?: number;
  sample_fmt?: string;
}

export interface ProbeFormat {
  format_name?: string;
  /** Where ffmpeg's timeline starts: it subtracts this from every timestamp it hands to filters. */
  start_time?: string;
  duration?: string;
  bit_rate?: string;
  size?: string;
  tags?: Record<string, string>;
}

export interface ProbeResult {
  streams: ProbeStream[];
  format: ProbeFormat;
  /** ffprobe's error log of a run that still described the file (a decoder refusing a frame size, ...). */
  log?: string;
}

/** `inputOptions`: the restrictions put in front of `-i` (SAFE_INPUT_OPTIONS unless a caller has its own). */
type ProbeOptions = ToolOptions & { inputOptions?: string[] };

export async function ffprobe(path: string, opts: ProbeOptions): Promise<ProbeResult> {
  const { stdout, stderr } = await runTool(
    "ffprobe",
    ["-v", "error", ...(opts.inputOptions ?? SAFE_INPUT_OPTIONS), "-print_format", "json", "-show_format", "-show_streams", "-i", path],
    opts,
  );
  const parsed = JSON.parse(stdout) as Partial<ProbeResult>;
  return { streams: parsed.streams ?? [], format: parsed.format ?? {}, log: stderr.slice(-4000) };
}

/**
 * Per-stream packet sizes and timestamps (demux only, no decoding): bit rates ffprobe lacks, the rate mode, and where
 * the keyframes are (which frames the video pass can decode on their own).
 */
export interface PacketStats {
  /** stream index → packets as [pts seconds, bytes] */
  byStream: Map<number, Array<[number, number]>>;
  /** stream index → pts seconds of the packets the demuxer flags as keyframes, in file order */
  keyframes: Map<number, number[]>;
  /** What the demuxer complained about while reading every packet (the end of its error log): a cut file says so here. */
  demuxErrors: string;
}

/**
 * ffprobe's description and the packet scan from one ffprobe: the streams and format, then every packet's stream,
 * times, size and flags (demux only). One process instead of two (ffmpeg 5.1 spends ~0.1 s of CPU loading its shared
 * libraries and opening the decoders per process, on a 2-core machine beside the passes); the description arrives
 * when the packets are read (ffprobe prints the streams after them), which the packet scan beside it had to wait for
 * anyway. JSON with one line per packet (`json=c=1`: ~90 bytes a packet).
 */
export async function probeWithPackets(path: string, opts: ProbeOptions): Promise<{ meta: ProbeResult; packets: PacketStats }> {
  const { stdout, stderr } = await runTool(
    "ffprobe",
    [
      "-v", "error", ...(opts.inputOptions ?? SAFE_INPUT_OPTIONS),
      "-print_format", "json=c=1", "-show_format", "-show_streams",
      "-show_entries", "packet=stream_index,pts_time,dts_time,size,flags",
      "-i", path,
    ],
    { maxBuffer: 256 * 1024 * 1024, ...opts },
  );
  const parsed = JSON.parse(stdout) as Partial<ProbeResult> & { packets?: Array<Record<string, unknown>> };
  const byStream = new Map<number, Array<[number, number]>>();
  const keyframes = new Map<number, number[]>();
  for (const p of parsed.packets ?? []) addPacket(byStream, keyframes, p);
  return {
    // The description's own messages (a decoder refusing a frame size) come first, before any of the packets'.
    meta: { streams: parsed.streams ?? [], format: parsed.format ?? {}, log: stderr.slice(0, 4000) },
    packets: { byStream, keyframes, demuxErrors: stderr.slice(-4000) },
  };
}

/**
 * probeWithPackets, or — when the packet scan cannot finish (its time-out, a file of more packets than its buffer
 * holds) — the description alone, as when the two ran as two processes: the packet-based fields (bit rates, rate mode,
 * keyframes) are then not measured, and the file is not refused for them. A file ffprobe cannot describe either way is
 * refused with the description's own error, as before.
 */
export async function probeDescribed(path: string, opts: ProbeOptions): Promise<{ meta: ProbeResult; packets?: PacketStats; packetsError?: unknown }> {
  try {
    return await probeWithPackets(path, opts);
  } catch (packetsError) {
    if (opts.signal?.aborted) throw packetsError;
    // A description alone takes well under a second; its own bound keeps a bad file's refusal fast.
    const meta = await ffprobe(path, { ...opts, timeoutMs: Math.min(opts.timeoutMs ?? DESCRIPTION_MS, DESCRIPTION_MS) });
    return { meta, packetsError };
  }
}
const DESCRIPTION_MS = 10_000;

function addPacket(byStream: PacketStats["byStream"], keyframes: PacketStats["keyframes"], kv: Record<string, unknown>): void {
  const idx = Number(kv.stream_index);
  const size = Number(kv.size);
  let t = Number(kv.pts_time);
  if (!Number.isFinite(t)) t = Number(kv.dts_time);
  if (!Number.isInteger(idx) || !Number.isFinite(size)) return;
  let list = byStream.get(idx);
  if (!list) byStream.set(idx, (list = []));
  list.push([Number.isFinite(t) ? t : NaN, size]);
  if (typeof kv.flags === "string" && kv.flags.startsWith("K") && Number.isFinite(t)) {
    let keys = keyframes.get(idx);
    if (!keys) keyframes.set(idx, (keys = []));
    keys.push(t);
  }
}

export async function packetStats(path: string, opts: ProbeOptions): Promise<PacketStats> {
  const { stdout, stderr } = await runTool(
    "ffprobe",
    [
      "-v", "error", ...(opts.inputOptions ?? SAFE_INPUT_OPTIONS),
      "-show_entries", "packet=stream_index,pts_time,dts_time,size,flags",
      "-print_format", "compact=p=0:nk=0",
      "-i", path,
    ],
    { maxBuffer: 128 * 1024 * 1024, ...opts },
  );
  const byStream = new Map<number, Array<[number, number]>>();
  const keyframes = new Map<number, number[]>();
  for (const line of stdout.split("\n")) {
    if (!line) continue;
    addPacket(byStream, keyframes, Object.fromEntries(line.split("|").map((p) => p.split("=", 2) as [string, string])));
  }
  return { byStream, keyframes, demuxErrors: stderr.slice(-4000) };
}
