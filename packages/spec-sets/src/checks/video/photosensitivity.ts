import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured } from "../file-util.ts";

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
    const worst = Math.max(a.maxFlashesPerSecond, a.maxRedFlashesPerSecond);
    if (!a.flashRisk && !a.flashesJudged) throw new Error(a.flashesNotJudgedReason || "flashing could not be judged");
    if (!a.flashRisk) return worst;
    const kinds = [a.maxFlashesPerSecond > 3 ? `${a.maxFlashesPerSecond} general` : "", a.redFlash ? `${a.maxRedFlashesPerSecond} red` : ""].filter(Boolean).join(" and ");
    return { value: worst, detail: `${kinds} flashes in the second starting ${a.worstSecondMs} ms after the first frame` };
  },
};
