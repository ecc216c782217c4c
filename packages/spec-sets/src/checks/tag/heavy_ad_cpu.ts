import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

/**
 * Chrome unloads an ad using > 15 s of main-thread CPU in any 30 s window, or > 60 s in total. The report carries only
 * the total CPU time of the scan; while a scan observes at most 30 s, that total is exactly the worst 30 s window, and
 * 15 s is the binding limit (it is below 60 s). For longer scans the total over-approximates every window, so a pass
 * is still certain and a fail is conservative.
 */
export const heavy_ad_cpu: TagTest = {
  meta: {
    id: "heavy_ad_cpu",
    name: "Chrome Heavy Ad Intervention (CPU)",
    data_type: "int",
    unit: "ms",
    description: "Main-thread CPU milliseconds used by the creative during the scan (cpu_usage_ms).",
  },
  measure(report: TagReport) {
    return Number(report.cpuUsageMs);
  },
};
