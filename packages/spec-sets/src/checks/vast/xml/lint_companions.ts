import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_companions: VastXmlTest = {
  meta: {
    id: "lint_companions",
    name: "Lint: Companions",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the companion rules: size, resource, required and renderingMode values. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "companions"),
};
