import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { axeFindings } from "../a11y.ts";

export const text_contrast: TagTest = {
  meta: {
    id: "text_contrast",
    name: "Text Contrast (WCAG 1.4.3)",
    data_type: "int",
    unit: "count",
    description:
      "Text elements below the WCAG AA contrast ratio (axe-core color-contrast), in every frame. Text drawn into a canvas or baked into an image is not checked; the result says so.",
  },
  measure(report: TagReport) {
    return axeFindings(report, ["color-contrast"], { notCheckedKinds: ["canvas_text", "image_text"] });
  },
};
