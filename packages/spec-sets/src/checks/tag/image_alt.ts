import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { axeFindings } from "../a11y.ts";

export const IMAGE_ALT_RULES = ["image-alt", "input-image-alt", "role-img-alt", "area-alt", "svg-img-alt"] as const;

export const image_alt: TagTest = {
  meta: {
    id: "image_alt",
    name: "Image Text Alternatives (WCAG 1.1.1)",
    data_type: "int",
    unit: "count",
    description: "Images without a text alternative (axe-core image-alt, input-image-alt, role-img-alt, area-alt, svg-img-alt), in every frame.",
  },
  measure(report: TagReport) {
    return axeFindings(report, IMAGE_ALT_RULES);
  },
};
