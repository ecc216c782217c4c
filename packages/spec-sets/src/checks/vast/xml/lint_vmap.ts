import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_vmap: VastXmlTest = {
  meta: {
    id: "lint_vmap",
    name: "Lint: VMAP",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the VMAP 1.0.1 rules: AdBreak timeOffset and breakType, AdSource content, AdTagURI, break tracking. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "vmap"),
};
