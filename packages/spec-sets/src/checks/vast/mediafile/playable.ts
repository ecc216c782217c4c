import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { isInteractive } from "../../util.ts";

export const playable: MediaFileTest = {
  meta: {
    id: "playable",
    name: "Playable Media File",
    data_type: "bool",
    unit: "",
    description:
      "1 if the media file downloaded and holds an audio or video stream the prober could read, else 0 with the reason (HTTP error, a streaming playlist, HTML, not media); not applicable to VPAID/interactive code; not evaluated when the file was never probed.",
  },
  measure({ mediaFile }: MediaFileInput) {
    if (isInteractive(mediaFile)) return null;
    const probe = mediaFile.probe;
    if (!probe) throw new Error("the media file was not probed");
    if (probe.notProbed) throw new Error(probe.error || "the media file was not probed");
    if (probe.error) return { value: 0, detail: probe.error };
    const info = probe.fileInfo;
    if (!info?.video && !info?.audio) return { value: 0, detail: "no audio or video stream" };
    return 1;
  },
};
