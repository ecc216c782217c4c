import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { msOrUnbounded } from "../util.ts";

export const animation_duration: TagTest = {
  meta: {
    id: "animation_duration",
    name: "Animation Duration",
    data_type: "int",
    unit: "ms",
    description:
      "Milliseconds from the first painted pixel until all pixels stop moving; unbounded (-1 in the report) when still animating at the time-out.",
  },
  measure(report: TagReport) {
    return msOrUnbounded(report.animationDurationMs);
  },
};
