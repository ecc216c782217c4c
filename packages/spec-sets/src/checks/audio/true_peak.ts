import type { AudioFileReport } from "@cva/contracts";
import type { AudioFileTest } from "../../types.ts";
import { truePeakOf } from "../file-util.ts";

export const true_peak: AudioFileTest = {
  meta: {
    id: "true_peak",
    name: "True Peak",
    data_type: "float",
    unit: "dBTP",
    description:
      "Highest true (inter-sample, 4x oversampled) peak of the audio over the whole programme, in dBTP.",
  },
  measure(report: AudioFileReport) {
    return truePeakOf(report, "audio");
  },
};
