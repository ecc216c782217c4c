import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { fileInfo, requireMeasured } from "../../util.ts";

export const audio_bit_rate: MediaFileTest = {
  meta: {
    id: "audio_bit_rate",
    name: "Audio Bit Rate",
    data_type: "float",
    unit: "kbps",
    description: "Bit rate of the audio track in kbps (1000 bit/s); not applicable without audio.",
  },
  measure(input: MediaFileInput) {
    const audio = fileInfo(input)?.audio;
    if (!audio) return null;
    requireMeasured(input, "file_info.audio.bit_rate", "the audio bit rate");
    if (audio.bitRate <= 0n) throw new Error("the prober measured no audio bit rate");
    return Number(audio.bitRate) / 1000;
  },
};
