import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_required_elements: VastXmlTest = {
  meta: {
    id: "lint_required_elements",
    name: "Lint: Required Elements",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the VAST linter's required-element rules: elements and attributes every InLine, Wrapper, Linear, NonLinear and Companion of the document's version must have. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "required_elements"),
};
