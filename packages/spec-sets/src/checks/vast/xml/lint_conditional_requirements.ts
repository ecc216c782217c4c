import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_conditional_requirements: VastXmlTest = {
  meta: {
    id: "lint_conditional_requirements",
    name: "Lint: Version Requirements",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the rules a version introduced: UniversalAdId (4.0), AdServingId and the Verification vendor (4.1), Pricing and Category attributes, Open Measurement resources. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "conditional_requirements"),
};
