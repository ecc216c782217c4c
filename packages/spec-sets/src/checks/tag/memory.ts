import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { BYTES_PER_KB } from "../util.ts";

export const memory: TagTest = {
  meta: {
    id: "memory",
    name: "Memory",
    data_type: "float",
    unit: "KB",
    description: "Memory used by the creative (memory_usage_bytes), in KB of 1000 bytes.",
  },
  measure(report: TagReport) {
    return Number(report.memoryUsageBytes) / BYTES_PER_KB;
  },
};
