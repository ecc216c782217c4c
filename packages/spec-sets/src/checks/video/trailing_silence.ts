import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { silenceOf } from "../file-util.ts";

export const trailing_silence: VideoFileTest = {
  meta: {
    id: "trailing_silence",
    name: "Trailing Silence",
    data_type: "int",
    unit: "ms",
    description:
      "Milliseconds of silence (every channel under -60 dBFS) after the sound ends; not applicable without audio.",
  },
  measure(report: VideoFileReport) {
    return silenceOf(report, "video", "trailing");
  },
};
