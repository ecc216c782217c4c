import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured } from "../file-util.ts";

export const trailing_black: VideoFileTest = {
  meta: {
    id: "trailing_black",
    name: "Trailing Black",
    data_type: "int",
    unit: "ms",
    description: "Milliseconds of black picture up to the end of the last frame (98 % of the pixels under 10 % of the luma range).",
  },
  measure(report: VideoFileReport) {
    requireFileMeasured(report, "file_info.content.trailing_black_ms", "the trailing black");
    const c = report.fileInfo?.content;
    if (!c) throw new Error("the report has no file_info.content");
    return Number(c.trailingBlackMs);
  },
};
