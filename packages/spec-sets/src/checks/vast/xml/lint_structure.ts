import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_structure: VastXmlTest = {
  meta: {
    id: "lint_structure",
    name: "Lint: Structure",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the structure rules: elements repeated where the schema allows one. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "structure"),
};
