import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

export const dialogs: TagTest = {
  meta: {
    id: "dialogs",
    name: "Dialogs",
    data_type: "int",
    unit: "count",
    description: "Number of alert/confirm/prompt/beforeunload dialogs the creative opened.",
  },
  measure(report: TagReport) {
    return report.dialogs.length;
  },
};
