import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { pauseMeasure } from "../a11y.ts";

export const motion_pause: TagTest = {
  meta: {
    id: "motion_pause",
    name: "Pause, Stop, Hide (WCAG 2.2.2)",
    data_type: "bool",
    unit: "",
    description:
      "1 if the creative moves for 5 s or less, or a visible control named pause or stop stopped it when clicked (accessibility.pause_control); 0 if it moves longer without a working control.",
  },
  measure(report: TagReport) {
    return pauseMeasure(report);
  },
};
