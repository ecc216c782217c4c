import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";
import { BYTES_PER_KB } from "../util.ts";

export const zip_size: ZipTest = {
  meta: {
    id: "zip_size",
    name: "Zip File Size",
    data_type: "float",
    unit: "KB",
    description: "Size of the zip as uploaded (compressed), KB (1 KB = 1000 bytes).",
  },
  measure(report: ZipReport) {
    return Number(report.zipSize) / BYTES_PER_KB;
  },
};
