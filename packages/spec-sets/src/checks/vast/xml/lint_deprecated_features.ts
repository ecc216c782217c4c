import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_deprecated_features: VastXmlTest = {
  meta: {
    id: "lint_deprecated_features",
    name: "Lint: Deprecated Features",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the deprecation rules (VPAID in 4.1+, Flash, conditionalAd, Survey, VAST 1.0); they are warnings, so this test fails only if one is ever made an error. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "deprecated_features"),
};
