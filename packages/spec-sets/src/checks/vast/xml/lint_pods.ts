import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_pods: VastXmlTest = {
  meta: {
    id: "lint_pods",
    name: "Lint: Ad Pods",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the pod rules: sequence numbers of the ads of a pod. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "pods"),
};
