import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

/**
 * CPU time as a share of the observed wall time. The report carries CPU milliseconds (cpu_usage_ms) but no separate
 * observation window, so the scan's duration (meta.scan_duration_seconds) is the denominator; it includes some worker
 * overhead, which makes this a slight under-estimate. A dedicated observation-window field would make it exact.
 */
export const cpu_usage: TagTest = {
  meta: {
    id: "cpu_usage",
    name: "CPU Usage",
    data_type: "float",
    unit: "%",
    description: "Main-thread CPU time of the creative divided by the scan's wall time, in percent.",
  },
  measure(report: TagReport) {
    const windowMs = (report.meta?.scanDurationSeconds ?? 0) * 1000;
    if (!(windowMs > 0)) throw new Error("the report has no scan duration to relate CPU time to");
    return (Number(report.cpuUsageMs) / windowMs) * 100;
  },
};
