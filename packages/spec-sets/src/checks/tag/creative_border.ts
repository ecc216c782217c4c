import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { bool } from "../util.ts";

export const creative_border: TagTest = {
  meta: {
    id: "creative_border",
    name: "Creative Border",
    data_type: "bool",
    unit: "",
    description: "1 if the creative has a contrasting border (has_border), else 0.",
  },
  measure(report: TagReport) {
    return bool(report.hasBorder);
  },
};
