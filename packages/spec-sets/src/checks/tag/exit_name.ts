import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { axeFindings } from "../a11y.ts";

export const exit_name: TagTest = {
  meta: {
    id: "exit_name",
    name: "Exit Link Name (WCAG 2.4.4, 4.1.2)",
    data_type: "int",
    unit: "count",
    description: "Links and buttons without an accessible name (axe-core link-name, button-name), in every frame: a screen reader announces the exit as just \"link\".",
  },
  measure(report: TagReport) {
    return axeFindings(report, ["link-name", "button-name"]);
  },
};
