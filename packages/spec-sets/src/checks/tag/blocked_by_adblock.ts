import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { bool } from "../util.ts";

export const blocked_by_adblock: TagTest = {
  meta: {
    id: "blocked_by_adblock",
    name: "Blocked by AdBlock",
    data_type: "bool",
    unit: "",
    description: "1 if ad blockers will likely block the tag (blocked_by_adblock), else 0.",
  },
  measure(report: TagReport) {
    return bool(report.blockedByAdblock);
  },
};
