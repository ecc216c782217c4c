import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

/**
 * The creative's average main-thread CPU load on the reference device (report.cpu, a mid-tier phone's core; see the
 * tag scanner's README). Unlike cpu_usage — host CPU milliseconds over the scan's wall time — it does not depend on
 * how fast the scanning machine is. Errors when the scanner had no calibration to express it with.
 */
export const cpu_average: TagTest = {
  meta: {
    id: "cpu_average",
    name: "CPU Load (reference device)",
    data_type: "float",
    unit: "%",
    description: "Average main-thread CPU load of the creative over its render, in percent of one core of the reference device (cpu.average_percent).",
  },
  measure(report: TagReport) {
    if (!report.cpu) throw new Error("the scanner had no CPU calibration for this scan (cpu not measured)");
    return report.cpu.averagePercent;
  },
};
