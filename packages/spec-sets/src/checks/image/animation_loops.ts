import type { ImageFileReport } from "@cva/contracts";
import type { ImageFileTest } from "../../types.ts";
import { requireFileMeasured } from "../file-util.ts";

export const animation_loops: ImageFileTest = {
  meta: {
    id: "animation_loops",
    name: "Animation Loops",
    data_type: "int",
    unit: "count",
    description: "How many times an animated image plays (GIF NETSCAPE2.0, WebP ANIM, APNG num_plays); unbounded when it loops forever. Not applicable to a still image.",
  },
  measure(report: ImageFileReport) {
    if (!report.animated) return null;
    requireFileMeasured(report, "loop_count", "the loop count");
    if (report.loopCount === 0) return { value: Number.POSITIVE_INFINITY, detail: "the animation loops forever (loop count 0)" };
    return report.loopCount;
  },
};
