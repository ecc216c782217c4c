import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const creative_count: VastXmlTest = {
  meta: {
    id: "creative_count",
    name: "Creative Count",
    data_type: "int",
    unit: "count",
    description: "Number of creatives in the (unwrapped) VAST ad.",
  },
  measure(report: VastReport) {
    return report.creatives.length;
  },
};
