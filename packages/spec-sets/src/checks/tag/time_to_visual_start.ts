import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { msOrUnbounded } from "../util.ts";

export const time_to_visual_start: TagTest = {
  meta: {
    id: "time_to_visual_start",
    name: "Time to Visual Start",
    data_type: "int",
    unit: "ms",
    description: "Milliseconds until the creative painted something; unbounded (-1 in the report) if it never did.",
  },
  measure(report: TagReport) {
    return msOrUnbounded(report.timeToVisualStartMs);
  },
};
