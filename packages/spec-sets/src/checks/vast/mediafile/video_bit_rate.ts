import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { fileInfo, requireMeasured } from "../../util.ts";

export const video_bit_rate: MediaFileTest = {
  meta: {
    id: "video_bit_rate",
    name: "Video Bit Rate",
    data_type: "float",
    unit: "kbps",
    description: "Bit rate of the video stream in kbps (1000 bit/s); not applicable to audio-only files.",
  },
  measure(input: MediaFileInput) {
    const info = fileInfo(input);
    if (!info?.video) return null;
    if (info.video.bitRate > 0n) return Number(info.video.bitRate) / 1000;
    // Some containers (WebM, fragmented MP4) carry no per-stream bit rate: the container's minus the audio's is the
    // best measured estimate.
    const container = Number(info.container?.bitRate ?? 0n);
    if (container > 0) return (container - Number(info.audio?.bitRate ?? 0n)) / 1000;
    requireMeasured(input, "file_info.video.bit_rate", "the video bit rate");
    throw new Error("the prober measured no video bit rate");
  },
};
