import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { sampleRateOf } from "../file-util.ts";

export const sample_rate: VideoFileTest = {
  meta: {
    id: "sample_rate",
    name: "Audio Sample Rate",
    data_type: "int",
    unit: "Hz",
    description:
      "Sample rate of the audio stream, Hz; not applicable without audio.",
  },
  measure(report: VideoFileReport) {
    return sampleRateOf(report, "video");
  },
};
