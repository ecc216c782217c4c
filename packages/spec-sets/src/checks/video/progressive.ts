import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured, videoOf } from "../file-util.ts";

export const progressive: VideoFileTest = {
  meta: {
    id: "progressive",
    name: "Progressive Scan",
    data_type: "bool",
    unit: "",
    description: "Whether the frames are progressive, judged from the decoded frames (ffmpeg idet), not only the header.",
  },
  measure(report: VideoFileReport) {
    const v = videoOf(report);
    requireFileMeasured(report, "file_info.video.scan_type", "the scan type");
    return v.scanType === "progressive" ? 1 : { value: 0, detail: `the frames are ${v.scanType || "not progressive"}: combing on every progressive screen unless deinterlaced` };
  },
};
