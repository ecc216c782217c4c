import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { BYTES_PER_KB, loadSize } from "../util.ts";

export const host_initiated_subload: TagTest = {
  meta: {
    id: "host_initiated_subload",
    name: "Host-initiated Subload",
    data_type: "float",
    unit: "KB",
    description:
      "Bytes transferred after the initial load phase without user interaction (network.load_size.host_initiated_subload), in KB of 1000 bytes.",
  },
  measure(report: TagReport) {
    return Number(loadSize(report).hostInitiatedSubload) / BYTES_PER_KB;
  },
};
