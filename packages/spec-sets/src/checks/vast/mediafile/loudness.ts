import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { fileInfo, requireMeasured } from "../../util.ts";

export const loudness: MediaFileTest = {
  meta: {
    id: "loudness",
    name: "Loudness",
    data_type: "float",
    unit: "LUFS",
    description: "Integrated loudness of the audio track (EBU R128), in LUFS; not applicable without audio.",
  },
  measure(input: MediaFileInput) {
    const audio = fileInfo(input)?.audio;
    if (!audio) return null;
    requireMeasured(input, "file_info.audio.loudness", "the loudness");
    if (!audio.loudness) throw new Error("the prober measured no loudness for the audio track");
    return audio.loudness.lufs;
  },
};
