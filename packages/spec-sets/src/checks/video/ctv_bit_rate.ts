import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured, videoOf } from "../file-util.ts";

export const ctv_bit_rate: VideoFileTest = {
  meta: {
    id: "ctv_bit_rate",
    name: "Video Bit Rate (CTV)",
    data_type: "int",
    unit: "kbps",
    description: "Bit rate of the video stream, kbps (1 kbps = 1000 bit/s).",
  },
  measure(report: VideoFileReport) {
    const v = videoOf(report);
    requireFileMeasured(report, "file_info.video.bit_rate", "the video bit rate");
    if (v.bitRate <= 0n) throw new Error("the video stream's bit rate is not known");
    return Math.round(Number(v.bitRate) / 1000);
  },
};
