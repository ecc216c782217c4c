import type { AudioFileReport } from "@cva/contracts";
import type { AudioFileTest } from "../../types.ts";
import { silenceOf } from "../file-util.ts";

export const leading_silence: AudioFileTest = {
  meta: {
    id: "leading_silence",
    name: "Leading Silence",
    data_type: "int",
    unit: "ms",
    description:
      "Milliseconds of silence (every channel under -60 dBFS) before the sound starts.",
  },
  measure(report: AudioFileReport) {
    return silenceOf(report, "audio", "leading");
  },
};
