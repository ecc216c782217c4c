import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured } from "../file-util.ts";

export const leading_black: VideoFileTest = {
  meta: {
    id: "leading_black",
    name: "Leading Black",
    data_type: "int",
    unit: "ms",
    description: "Milliseconds of black picture from the first frame on (a black slate) (98 % of the pixels under 10 % of the luma range).",
  },
  measure(report: VideoFileReport) {
    requireFileMeasured(report, "file_info.content.leading_black_ms", "the leading black");
    const c = report.fileInfo?.content;
    if (!c) throw new Error("the report has no file_info.content");
    return Number(c.leadingBlackMs);
  },
};
