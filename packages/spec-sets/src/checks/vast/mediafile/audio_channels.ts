import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { fileInfo } from "../../util.ts";

export const audio_channels: MediaFileTest = {
  meta: {
    id: "audio_channels",
    name: "Audio Channels",
    data_type: "int",
    unit: "count",
    description: "Number of channels of the audio track; not applicable without audio.",
  },
  measure(input: MediaFileInput) {
    const audio = fileInfo(input)?.audio;
    return audio ? audio.channels : null;
  },
};
