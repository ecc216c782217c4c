import type { ImageFileReport } from "@cva/contracts";
import type { ImageFileTest } from "../../types.ts";
import { requireFileMeasured } from "../file-util.ts";

export const iab_size: ImageFileTest = {
  meta: {
    id: "iab_size",
    name: "Standard IAB Size",
    data_type: "bool",
    unit: "",
    description: "Whether the image's displayed size is exactly one of the IAB New Ad Portfolio 2017 fixed sizes (300x250, 728x90, …).",
  },
  measure(report: ImageFileReport) {
    requireFileMeasured(report, "iab_size", "the image size");
    if (report.iabSize !== "") return { value: 1, detail: `${report.iabSize}` };
    return { value: 0, detail: `${report.width}x${report.height} is not an IAB fixed size` };
  },
};
