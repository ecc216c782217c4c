import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";
import { BYTES_PER_KB } from "../util.ts";

export const unzipped_size: ZipTest = {
  meta: {
    id: "unzipped_size",
    name: "Hosted File Size",
    data_type: "float",
    unit: "KB",
    description: "Total uncompressed size of the zip's files (what the ad server hosts), KB (1 KB = 1000 bytes); judged by creative size.",
  },
  measure(report: ZipReport) {
    return Number(report.unzippedSize) / BYTES_PER_KB;
  },
};
