import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

export const console_errors: TagTest = {
  meta: {
    id: "console_errors",
    name: "Console Errors",
    data_type: "int",
    unit: "count",
    description: "Number of errors the creative logged to the console while loading.",
  },
  measure(report: TagReport) {
    return report.console?.errors.length ?? 0;
  },
};
