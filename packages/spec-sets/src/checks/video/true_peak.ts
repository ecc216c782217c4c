import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { truePeakOf } from "../file-util.ts";

export const true_peak: VideoFileTest = {
  meta: {
    id: "true_peak",
    name: "True Peak",
    data_type: "float",
    unit: "dBTP",
    description:
      "Highest true (inter-sample, 4x oversampled) peak of the audio over the whole programme, in dBTP; not applicable without audio.",
  },
  measure(report: VideoFileReport) {
    return truePeakOf(report, "video");
  },
};
