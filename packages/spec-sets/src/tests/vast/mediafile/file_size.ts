import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { BYTES_PER_KB } from "../../util.ts";

export const file_size: MediaFileTest = {
  meta: {
    id: "file_size",
    name: "File Size",
    data_type: "float",
    unit: "KB",
    description: "Size of the downloaded media file, in KB of 1000 bytes.",
  },
  measure({ mediaFile }: MediaFileInput) {
    if (!mediaFile.probe || mediaFile.probe.error) throw new Error("the media file was not downloaded");
    return Number(mediaFile.probe.fileSize) / BYTES_PER_KB;
  },
};
