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
    if (!mediaFile.probe || mediaFile.probe.notProbed) throw new Error(mediaFile.probe?.error || "the media file was not downloaded");
    // A file that did not download has no size to judge; http_code and playable fail for it and say why.
    if (mediaFile.probe.error && mediaFile.probe.fileSize === 0n) return null;
    return Number(mediaFile.probe.fileSize) / BYTES_PER_KB;
  },
};
