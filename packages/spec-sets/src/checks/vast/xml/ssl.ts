import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { bool } from "../../util.ts";

export const ssl: VastXmlTest = {
  meta: {
    id: "ssl",
    name: "SSL",
    data_type: "bool",
    unit: "",
    description: "1 if every URL of the VAST chain and its media used https (ssl.compliant), else 0.",
  },
  measure(report: VastReport) {
    if (!report.ssl) throw new Error("the report has no ssl data");
    return bool(report.ssl.compliant);
  },
};
