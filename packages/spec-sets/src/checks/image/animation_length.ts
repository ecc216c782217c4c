import type { ImageFileReport } from "@cva/contracts";
import type { ImageFileTest } from "../../types.ts";
import { requireFileMeasured } from "../file-util.ts";

export const animation_length: ImageFileTest = {
  meta: {
    id: "animation_length",
    name: "Animation Length",
    data_type: "int",
    unit: "ms",
    description:
      "Milliseconds an animated image plays, every loop included, under the browsers' frame-delay rules; unbounded when it loops forever. Not applicable to a still image.",
  },
  measure(report: ImageFileReport) {
    if (!report.animated) return null;
    requireFileMeasured(report, "animation_duration_ms", "the animation's length");
    const ms = Number(report.animationDurationMs);
    if (ms < 0) return { value: Number.POSITIVE_INFINITY, detail: "the animation loops forever (loop count 0)" };
    return { value: ms, detail: `${report.frameCount} frames, ${report.loopCount} play${report.loopCount === 1 ? "" : "s"}` };
  },
};
