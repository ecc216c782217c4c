import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured } from "../file-util.ts";
import { flashMeasurement } from "../a11y.ts";

export const photosensitivity: VideoFileTest = {
  meta: {
    id: "photosensitivity",
    name: "Three Flashes (WCAG 2.3.1)",
    data_type: "int",
    unit: "count",
    description:
      "Most general or red flashes in any one second of the video (accessibility.max_flashes_per_second, max_red_flashes_per_second), from every frame by the WCAG 2.2 flash thresholds; not evaluated when not every second was analysed and no risk was seen.",
  },
  measure(report: VideoFileReport) {
    const a = report.accessibility;
    if (!a) throw new Error("the report has no accessibility section");
    requireFileMeasured(report, "accessibility.flash_risk", "flashing");
    return flashMeasurement(a, "the first frame");
  },
};
