import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { BYTES_PER_KB, loadSize } from "../util.ts";

/** Bytes of the initial load phase as the tag scanner measured them (its phase boundary is documented in the set). */
export const initial_load: TagTest = {
  meta: {
    id: "initial_load",
    name: "Initial Load",
    data_type: "float",
    unit: "KB",
    description: "Bytes transferred during the initial load phase (network.load_size.initial_load), in KB of 1000 bytes.",
  },
  measure(report: TagReport) {
    return Number(loadSize(report).initialLoad) / BYTES_PER_KB;
  },
};
