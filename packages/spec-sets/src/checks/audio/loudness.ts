import type { AudioFileReport } from "@cva/contracts";
import type { AudioFileTest } from "../../types.ts";
import { loudnessOf } from "../file-util.ts";

export const loudness: AudioFileTest = {
  meta: {
    id: "loudness",
    name: "Loudness",
    data_type: "float",
    unit: "LUFS",
    description:
      "Integrated loudness of the programme (EBU R128 / ITU-R BS.1770), in LUFS (= LKFS).",
  },
  measure(report: AudioFileReport) {
    return loudnessOf(report, "audio");
  },
};
