import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_interactive: VastXmlTest = {
  meta: {
    id: "lint_interactive",
    name: "Lint: Interactive Creatives",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the interactive-creative rules: InteractiveCreativeFile URLs and SIMID types. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "interactive"),
};
