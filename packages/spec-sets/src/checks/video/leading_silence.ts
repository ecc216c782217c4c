import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { silenceOf } from "../file-util.ts";

export const leading_silence: VideoFileTest = {
  meta: {
    id: "leading_silence",
    name: "Leading Silence",
    data_type: "int",
    unit: "ms",
    description:
      "Milliseconds of silence (every channel under -60 dBFS) before the sound starts; not applicable without audio.",
  },
  measure(report: VideoFileReport) {
    return silenceOf(report, "video", "leading");
  },
};
