import type { AudioFileReport } from "@cva/contracts";
import type { AudioFileTest } from "../../types.ts";
import { audioOf, requireFileMeasured } from "../file-util.ts";

export const clipping: AudioFileTest = {
  meta: {
    id: "clipping",
    name: "Clipping",
    data_type: "int",
    unit: "count",
    description:
      "Samples at digital full scale (clipped), counted over every channel of the whole stream.",
  },
  measure(report: AudioFileReport) {
    const a = audioOf(report, "audio")!;
    requireFileMeasured(report, "file_info.audio.clipping", "clipping");
    const n = Number(a.clipping);
    return n === 0 ? 0 : { value: n, detail: `${n} sample${n === 1 ? "" : "s"} at full scale: the master was clipped (distortion a player's limiter cannot undo)` };
  },
};
