import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured, videoOf } from "../file-util.ts";

export const pillarboxing: VideoFileTest = {
  meta: {
    id: "pillarboxing",
    name: "Pillarboxing",
    data_type: "bool",
    unit: "",
    description: "Whether black bars are encoded left and right of the picture, consistently over the judged frames.",
  },
  measure(report: VideoFileReport) {
    const v = videoOf(report);
    requireFileMeasured(report, "file_info.video.pillarboxing", "pillarboxing");
    if (!v.pillarboxing) return 0;
    const bars = v.bars ? ` (${v.bars.left} px left, ${v.bars.right} px right)` : "";
    return { value: 1, detail: `black bars left and right of the picture${bars}: a player that fits it to another screen shrinks the picture inside them` };
  },
};
