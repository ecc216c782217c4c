import { join } from "node:path";
import { WAVE_FILTER } from "./audio-pass.ts";
import { parseSilencedetect, type Interval } from "./content.ts";
import { PASS_GLOBAL_OPTIONS } from "./decode-limits.ts";
import { FILE_INPUT_OPTIONS } from "./file-limits.ts";
import { parseEbur128Summary, type LoudnessFacts } from "./loudness.ts";
import { isCompletePng, readComplete } from "./pass-files.ts";

/*
 * The audio pass of an uploaded video or audio file: every sample of one audio stream decoded once (no video), four
 * measurements from that one decode:
 *  - loudness: ebur128 with true peak (loudness.ts; integrated LUFS, LRA, dBTP);
 *  - waveform picture (audio-pass.ts's);
 *  - silence: silencedetect, under SILENCE_DB for at least SILENCE_MIN_S, all channels at once → leading/trailing
 *    silence (content.ts);
 *  - clipping: every sample (float, after decoding) whose magnitude reaches CLIP_LEVEL becomes +inf, every other one 0,
 *    and astats counts the infinities per channel — an exact count of clipped samples, which no ffmpeg statistic gives
 *    directly (astats' "Peak count" counts the samples at the stream's own extreme, clipped or not; volumedetect bins
 *    by whole dB). Its "Number of samples" gives the decoded length, where a silence "to the end" must end.
 * Measured on a 10-minute 48 kHz stereo AAC file: decode 0.8 s of CPU, ebur128 (true peak oversamples 4x) 4.3 s,
 * the clipping count 5.5 s, silencedetect 0.5 s; on a 30 s spot the pass takes well under a second.
 */

export const SILENCE_DB = -60;
export const SILENCE_MIN_S = 0.05;
/**
 * Full scale less one 16-bit step (32767/32768): what a 16-bit file clipped at either rail decodes to (+32767 reads
 * 0.99997, -32768 reads -1.0); lossy decoders of clipped masters overshoot past 1.0, which counts too.
 */
export const CLIP_LEVEL = "32767/32768";

export interface FileAudioPassInput {
  input: string;
  outDir: string;
  audioIndex: number;
}

export interface FileAudioPassPlan {
  args: string[];
  audioWave: string;
}

export function planFileAudioPass(p: FileAudioPassInput): FileAudioPassPlan {
  const audioWave = join(p.outDir, "wave.png");
  const graph = [
    `[0:${p.audioIndex}]asplit=4[aloud][awave][asil][aclip]`,
    `[aloud]ebur128=peak=true:framelog=verbose[loud]`,
    `[awave]${WAVE_FILTER}[wave]`,
    `[asil]silencedetect=n=${SILENCE_DB}dB:d=${SILENCE_MIN_S}[silence]`,
    `[aclip]aformat=sample_fmts=flt|fltp,aeval=exprs='if(gte(abs(val(ch)),${CLIP_LEVEL}),1/0,0)':c=same,` +
      `astats=measure_perchannel=Number_of_Infs:measure_overall=Number_of_samples[clip]`,
  ];
  const args = [
    "-hide_banner", "-nostdin", "-nostats", "-v", "info", ...PASS_GLOBAL_OPTIONS,
    ...FILE_INPUT_OPTIONS, "-vn", "-sn", "-dn", "-i", p.input,
    "-filter_complex", graph.join(";"),
    "-map", "[loud]", "-f", "null", "-",
    "-map", "[silence]", "-f", "null", "-",
    "-map", "[clip]", "-f", "null", "-",
    "-map", "[wave]", "-frames:v", "1", "-f", "image2", "-update", "1", audioWave,
    "-y",
  ];
  return { args, audioWave };
}

export interface FileAudioPassResult {
  loudness?: LoudnessFacts;
  audioWave?: Buffer;
  silences: Interval[];
  /** Clipped samples over all channels; undefined when astats gave no count. */
  clipped?: number;
  /** Samples per channel decoded (the stream's decoded length). */
  samples?: number;
}

/** astats' per-channel "Number of Infs: 68000" lines and its overall "Number of samples: 96000". */
export function parseClipping(stderr: string): { clipped?: number; samples?: number } {
  const at = stderr.lastIndexOf("Channel: 1");
  if (at < 0) return {};
  const block = stderr.slice(at);
  const infs = [...block.matchAll(/Number of Infs: (\d+)/g)].map((m) => Number(m[1]));
  const samples = /Number of samples: (\d+)/.exec(block);
  return {
    clipped: infs.length ? infs.reduce((a, b) => a + b, 0) : undefined,
    samples: samples ? Number(samples[1]) : undefined,
  };
}

/** Loudness, silence and clipping are verdicts over the whole stream: taken only from a pass that finished. */
export async function readFileAudioPass(plan: FileAudioPassPlan, stderr: string, finished: boolean): Promise<FileAudioPassResult> {
  const audioWave = await readComplete(plan.audioWave, isCompletePng);
  if (!finished) return { audioWave, silences: [] };
  return { loudness: parseEbur128Summary(stderr), audioWave, silences: parseSilencedetect(stderr), ...parseClipping(stderr) };
}
