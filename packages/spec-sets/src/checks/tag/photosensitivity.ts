import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { accessibility } from "../a11y.ts";

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
    const worst = Math.max(a.maxFlashesPerSecond, a.maxRedFlashesPerSecond);
    if (!a.flashRisk && !a.flashesJudged) throw new Error(`${a.flashesNotJudgedReason}`);
    if (!a.flashRisk) return worst;
    const kinds = [a.maxFlashesPerSecond > 3 ? `${a.maxFlashesPerSecond} general` : "", a.redFlash ? `${a.maxRedFlashesPerSecond} red` : ""].filter(Boolean).join(" and ");
    return { value: worst, detail: `${kinds} flashes in the second starting ${a.worstSecondMs} ms after the render began` };
  },
};
