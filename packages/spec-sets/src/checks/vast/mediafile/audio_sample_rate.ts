import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { fileInfo } from "../../util.ts";

export const audio_sample_rate: MediaFileTest = {
  meta: {
    id: "audio_sample_rate",
    name: "Audio Sample Rate",
    data_type: "int",
    unit: "Hz",
    description: "Sample rate of the audio track; not applicable without audio.",
  },
  measure(input: MediaFileInput) {
    const audio = fileInfo(input)?.audio;
    return audio ? audio.sampleRate : null;
  },
};
