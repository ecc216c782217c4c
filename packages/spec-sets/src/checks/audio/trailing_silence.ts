import type { AudioFileReport } from "@cva/contracts";
import type { AudioFileTest } from "../../types.ts";
import { silenceOf } from "../file-util.ts";

export const trailing_silence: AudioFileTest = {
  meta: {
    id: "trailing_silence",
    name: "Trailing Silence",
    data_type: "int",
    unit: "ms",
    description:
      "Milliseconds of silence (every channel under -60 dBFS) after the sound ends.",
  },
  measure(report: AudioFileReport) {
    return silenceOf(report, "audio", "trailing");
  },
};
