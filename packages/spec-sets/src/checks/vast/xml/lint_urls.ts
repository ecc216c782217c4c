import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_urls: VastXmlTest = {
  meta: {
    id: "lint_urls",
    name: "Lint: URLs",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the URL rules: tracking, click, media and resource URLs that are not http(s), or use script schemes. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "urls"),
};
