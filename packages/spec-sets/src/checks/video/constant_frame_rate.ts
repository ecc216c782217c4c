import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured, videoOf } from "../file-util.ts";

export const constant_frame_rate: VideoFileTest = {
  meta: {
    id: "constant_frame_rate",
    name: "Constant Frame Rate",
    data_type: "bool",
    unit: "",
    description: "Whether every frame lasts the same (frame durations from the packet timestamps within 1 % of the median).",
  },
  measure(report: VideoFileReport) {
    const v = videoOf(report);
    requireFileMeasured(report, "file_info.video.frame_rate_mode", "the frame rate mode");
    return v.frameRateMode === "constant" ? 1 : { value: 0, detail: "variable frame rate: frame durations differ (phone and screen recordings)" };
  },
};
