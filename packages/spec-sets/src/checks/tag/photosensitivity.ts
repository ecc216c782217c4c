import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { accessibility, flashMeasurement } from "../a11y.ts";

export const photosensitivity: TagTest = {
  meta: {
    id: "photosensitivity",
    name: "Three Flashes (WCAG 2.3.1)",
    data_type: "int",
    unit: "count",
    description:
      "Most general or red flashes in any one second of the render (accessibility.max_flashes_per_second, max_red_flashes_per_second), by the WCAG 2.2 flash thresholds; not evaluated when frames may have been missed and no risk was seen.",
  },
  measure(report: TagReport) {
    const a = accessibility(report);
    return flashMeasurement(a, "the render began");
  },
};
