import type { AudioFileReport } from "@cva/contracts";
import type { AudioFileTest } from "../../types.ts";
import { sampleRateOf } from "../file-util.ts";

export const sample_rate: AudioFileTest = {
  meta: {
    id: "sample_rate",
    name: "Audio Sample Rate",
    data_type: "int",
    unit: "Hz",
    description:
      "Sample rate of the audio stream, Hz.",
  },
  measure(report: AudioFileReport) {
    return sampleRateOf(report, "audio");
  },
};
