import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_icons: VastXmlTest = {
  meta: {
    id: "lint_icons",
    name: "Lint: Icons",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the icon rules: Icon attributes and resource, AdChoices, IconClickFallbackImage (4.2). The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "icons"),
};
