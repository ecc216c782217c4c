import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { videoOf } from "../file-util.ts";

export const frame_rate: VideoFileTest = {
  meta: {
    id: "frame_rate",
    name: "Frame Rate",
    data_type: "float",
    unit: "fps",
    description: "Frames per second of the video stream (30000/1001 is 29.97).",
  },
  measure(report: VideoFileReport) {
    const v = videoOf(report);
    if (v.frameRate <= 0) throw new Error("the video stream states no frame rate");
    return { value: v.frameRate, detail: v.frameRateFraction ? `stated as ${v.frameRateFraction}` : "" };
  },
};
