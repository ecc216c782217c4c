import { join } from "node:path";
import { PASS_GLOBAL_OPTIONS, SAFE_INPUT_OPTIONS } from "./decode-limits.ts";
import { parseEbur128Summary, type LoudnessFacts } from "./loudness.ts";
import { isCompletePng, readComplete } from "./pass-files.ts";

/**
 * The audio pass: every sample of one audio stream is decoded (integrated loudness and true peak are properties of
 * the whole programme; there is no cheaper exact way), and nothing else. `-vn -sn -dn` keep the demuxer from handing
 * video packets to a decoder at all, so this costs what an audio-only `ebur128` run costs (the bench's floor).
 */
export interface AudioPassInput {
  input: string;
  outDir: string;
  /** The stream's index, or a stream specifier ("a:0": the first audio stream, for a pass started before ffprobe answers). */
  audioIndex: number | string;
}

export interface AudioPassPlan {
  args: string[];
  audioWave: string;
}

/**
 * The waveform picture. 8 kHz is plenty for a 1280 px picture and bounds showwavespic's memory (it keeps all samples
 * until the end).
 */
export const WAVE_FILTER =
  "aresample=8000,showwavespic=s=1280x240:colors=0x2f6fde|0x2f6fde|0x2f6fde|0x2f6fde|0x2f6fde|0x2f6fde:filter=peak:draw=full";

export function planAudioPass(p: AudioPassInput): AudioPassPlan {
  const audioWave = join(p.outDir, "wave.png");
  const graph = [
    `[0:${p.audioIndex}]asplit=2[aloud][awave]`,
    // framelog=verbose keeps per-frame lines out of the info log; the Summary is still logged at info.
    `[aloud]ebur128=peak=true:framelog=verbose[loud]`,
    `[awave]${WAVE_FILTER}[wave]`,
  ];
  const args = [
    "-hide_banner", "-nostdin", "-nostats", "-v", "info", ...PASS_GLOBAL_OPTIONS,
    ...SAFE_INPUT_OPTIONS, "-vn", "-sn", "-dn", "-i", p.input,
    "-filter_complex", graph.join(";"),
    "-map", "[loud]", "-f", "null", "-",
    "-map", "[wave]", "-frames:v", "1", "-f", "image2", "-update", "1", audioWave,
    "-y",
  ];
  return { args, audioWave };
}

export interface AudioPassResult {
  loudness?: LoudnessFacts;
  audioWave?: Buffer;
}

/**
 * ebur128 prints its Summary only when the stream ends, so `finished` false (failed or killed) means no loudness; the
 * waveform is kept if it was written whole.
 */
export async function readAudioPass(plan: AudioPassPlan, stderr: string, finished: boolean): Promise<AudioPassResult> {
  return {
    loudness: finished ? parseEbur128Summary(stderr) : undefined,
    audioWave: await readComplete(plan.audioWave, isCompletePng),
  };
}
