import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_macros: VastXmlTest = {
  meta: {
    id: "lint_macros",
    name: "Lint: Macros",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the macro rules: IAB macro names, spelling, versions, contexts, encoding and unexpanded ad-server macros. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "macros"),
};
