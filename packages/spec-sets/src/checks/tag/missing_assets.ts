import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

export const missing_assets: TagTest = {
  meta: {
    id: "missing_assets",
    name: "Missing Assets",
    data_type: "int",
    unit: "count",
    description: "Number of assets the creative requested that failed or returned an error status (missing_assets).",
  },
  measure(report: TagReport) {
    return report.missingAssets.length;
  },
};
