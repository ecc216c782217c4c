import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { loadSize } from "../util.ts";

/** In bytes because Chrome's limit is binary (4 × 1024 × 1024), which is no round number of decimal KB. */
export const heavy_ad_network: TagTest = {
  meta: {
    id: "heavy_ad_network",
    name: "Chrome Heavy Ad Intervention (network)",
    data_type: "int",
    unit: "bytes",
    description: "Total bytes the creative transferred (network.load_size.total), against Chrome's Heavy Ad network limit.",
  },
  measure(report: TagReport) {
    return Number(loadSize(report).total);
  },
};
