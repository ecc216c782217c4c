import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { lintGroup } from "../../util.ts";

export const lint_tracking_events: VastXmlTest = {
  meta: {
    id: "lint_tracking_events",
    name: "Lint: Tracking Events",
    data_type: "int",
    unit: "count",
    description:
      "Error findings of the tracking rules: event names per version, progress offsets, Verification events. The message cites each rule, its section and line.",
  },
  measure: (report: VastReport) => lintGroup(report, "tracking_events"),
};
