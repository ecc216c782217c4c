import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

export const measurement_pixels: TagTest = {
  meta: {
    id: "measurement_pixels",
    name: "Measurement Pixels",
    data_type: "int",
    unit: "count",
    description: "Number of measurement (tracking) pixels the creative fired (network.measurement_pixels).",
  },
  measure(report: TagReport) {
    if (!report.network) throw new Error("the report has no network data");
    return report.network.measurementPixels;
  },
};
