import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { loudnessOf } from "../file-util.ts";

export const loudness: VideoFileTest = {
  meta: {
    id: "loudness",
    name: "Loudness",
    data_type: "float",
    unit: "LUFS",
    description:
      "Integrated loudness of the audio track (EBU R128 / ITU-R BS.1770), in LUFS (= LKFS); not applicable without audio.",
  },
  measure(report: VideoFileReport) {
    return loudnessOf(report, "video");
  },
};
