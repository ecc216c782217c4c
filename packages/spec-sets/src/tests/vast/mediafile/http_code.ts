import type { MediaFileTest, MediaFileInput } from "../../../types.ts";

export const http_code: MediaFileTest = {
  meta: {
    id: "http_code",
    name: "HTTP Code",
    data_type: "int",
    unit: "",
    description: "HTTP status returned while downloading the media file (0 when no response arrived).",
  },
  measure({ mediaFile }: MediaFileInput) {
    if (!mediaFile.probe) throw new Error("the media file was not fetched");
    return mediaFile.probe.httpCode;
  },
};
