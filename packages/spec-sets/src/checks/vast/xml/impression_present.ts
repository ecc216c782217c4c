import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { bool } from "../../util.ts";

export const impression_present: VastXmlTest = {
  meta: {
    id: "impression_present",
    name: "Impression Logging",
    data_type: "bool",
    unit: "",
    description: "1 if the ad has at least one impression pixel (pixels.impression), else 0.",
  },
  measure(report: VastReport) {
    return bool(report.impressionPixels.length > 0);
  },
};
