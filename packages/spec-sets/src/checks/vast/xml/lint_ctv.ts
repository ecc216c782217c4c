import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_ctv: VastXmlTest = {
  meta: {
    id: "lint_ctv",
    name: "Lint: CTV and Ad Stitching",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the CTV rules (Mezzanine, renditions, captions); they are advice, so this test fails only if one is ever made an error. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "ctv"),
};
