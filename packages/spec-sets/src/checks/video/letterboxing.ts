import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured, videoOf } from "../file-util.ts";

export const letterboxing: VideoFileTest = {
  meta: {
    id: "letterboxing",
    name: "Letterboxing",
    data_type: "bool",
    unit: "",
    description: "Whether black bars are encoded above and below the picture, consistently over the judged frames.",
  },
  measure(report: VideoFileReport) {
    const v = videoOf(report);
    requireFileMeasured(report, "file_info.video.letterboxing", "letterboxing");
    if (!v.letterboxing) return 0;
    const bars = v.bars ? ` (${v.bars.top} px top, ${v.bars.bottom} px bottom)` : "";
    return { value: 1, detail: `black bars above and below the picture${bars}: a player that fits it to another screen shrinks the picture inside them` };
  },
};
