import type { ImageFileReport } from "@cva/contracts";
import type { ImageFileTest } from "../../types.ts";
import { BYTES_PER_KB } from "../util.ts";

export const image_weight: ImageFileTest = {
  meta: {
    id: "image_weight",
    name: "Image Weight",
    data_type: "float",
    unit: "KB",
    description:
      "The image file's size in KB (1 KB = 1000 bytes): an image ad's whole initial load. Judged against its size's figure; left out for sizes without one.",
  },
  measure(report: ImageFileReport) {
    const bytes = Number(report.fileSize);
    if (bytes <= 0) throw new Error("the report has no file size");
    return Math.round((bytes / BYTES_PER_KB) * 100) / 100;
  },
};
