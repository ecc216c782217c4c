import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { requireMeasuredField } from "../../util.ts";
import { bool } from "../../util.ts";

export const cors: VastXmlTest = {
  meta: {
    id: "cors",
    name: "CORS Header",
    data_type: "bool",
    unit: "",
    description: "1 if the VAST document is served with the CORS headers VAST requires (cors), else 0.",
  },
  measure(report: VastReport) {
    requireMeasuredField(report, "cors");
    return bool(report.cors);
  },
};
