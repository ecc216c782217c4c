import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_value_formats: VastXmlTest = {
  meta: {
    id: "lint_value_formats",
    name: "Lint: Value Formats",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the value-format rules: Duration and offsets (HH:MM:SS.mmm, n%), skipoffset, sizes, booleans, MIME types, enumerations (delivery, adType, pricing model …). The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "value_formats"),
};
