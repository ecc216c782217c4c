import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { bool } from "../../util.ts";

export const ad_system: VastXmlTest = {
  meta: {
    id: "ad_system",
    name: "Ad System",
    data_type: "bool",
    unit: "",
    description: "1 if the ad names its ad server (<AdSystem>, ad_system), else 0.",
  },
  measure(report: VastReport) {
    return bool(report.adSystem.trim() !== "");
  },
};
