import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_wrappers: VastXmlTest = {
  meta: {
    id: "lint_wrappers",
    name: "Lint: Wrappers",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the wrapper rules: VASTAdTagURI, followAdditionalWrappers / allowMultipleAds / fallbackOnNoAd, what a wrapper may carry. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "wrappers"),
};
