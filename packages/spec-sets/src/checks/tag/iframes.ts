import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

export const iframes: TagTest = {
  meta: {
    id: "iframes",
    name: "Iframes",
    data_type: "int",
    unit: "count",
    description: "Number of iframes the creative added to the DOM.",
  },
  measure(report: TagReport) {
    return report.iframes;
  },
};
