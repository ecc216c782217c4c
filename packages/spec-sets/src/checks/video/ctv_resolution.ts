import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { videoOf } from "../file-util.ts";

export const ctv_resolution: VideoFileTest = {
  meta: {
    id: "ctv_resolution",
    name: "Resolution (CTV)",
    data_type: "int",
    unit: "lines",
    description:
      "16:9-equivalent lines of the picture, max(short side, long side × 9/16) as the report's definition uses them: 1920x1080 and 1440x1080 are 1080, 1920x800 (2.4:1) is 1080.",
  },
  measure(report: VideoFileReport) {
    const v = videoOf(report);
    if (v.width <= 0 || v.height <= 0) throw new Error("the video stream states no frame size");
    const lines = Math.round(Math.max(Math.min(v.width, v.height), (Math.max(v.width, v.height) * 9) / 16));
    return { value: lines, detail: `${v.width}x${v.height}` };
  },
};
