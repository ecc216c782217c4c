import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

/** The creative's busiest second on the reference device's core (report.cpu.peak_percent). */
export const cpu_peak: TagTest = {
  meta: {
    id: "cpu_peak",
    name: "CPU Peak (reference device)",
    data_type: "float",
    unit: "%",
    description: "Main-thread CPU load of the creative in its busiest window of at least 1 s, in percent of one core of the reference device (cpu.peak_percent).",
  },
  measure(report: TagReport) {
    if (!report.cpu) throw new Error("the scanner had no CPU calibration for this scan (cpu not measured)");
    return report.cpu.peakPercent;
  },
};
