import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { bool } from "../util.ts";

export const ssl: TagTest = {
  meta: {
    id: "ssl",
    name: "SSL",
    data_type: "bool",
    unit: "",
    description: "1 if every URL the creative loaded used https (ssl.compliant), else 0.",
  },
  measure(report: TagReport) {
    if (!report.ssl) throw new Error("the report has no ssl data");
    return bool(report.ssl.compliant);
  },
};
