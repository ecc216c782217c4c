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
    // Never requested (no media worker, out of time): no status to judge. A request that got no answer is 0 and fails.
    if (mediaFile.probe.notProbed) throw new Error(mediaFile.probe.error || "the media file was not fetched");
    // Never requested because its URL is unusable (not http(s)): no status exists; playable fails and says why.
    if (mediaFile.probe.notMeasured.includes("http_code")) return null;
    const code = mediaFile.probe.httpCode;
    return code === 200 || !mediaFile.probe.error ? code : { value: code, detail: mediaFile.probe.error };
  },
};
