import type { CpuLoad } from "@cva/contracts";
import { num, obj, orEmpty } from "./schema.ts";

// v3 (tag and zip render): the creative's CPU load expressed on the reference device, so that a scan on a fast
// server and one on a slow laptop give the same figure (services/tag-scanner/README.md "cpu").
export const cpuSchema = orEmpty(
  obj({
    average_percent: num(
      "percent (0–100, one decimal) of one core of the reference device — a mid-tier phone, Lighthouse BenchmarkIndex 1000 — that the creative's main thread used over the whole render — over at least 1 s when the render ended on proof that nothing more was scheduled (the thread idles after it)",
    ),
    peak_percent: num("percent (0–100, one decimal) of the same core in the busiest window of at least 1 s"),
  }),
  "main-thread CPU load normalised to the reference device by the scanner's calibration (cpu_usage stays the raw CPU milliseconds on the scanning host); {} when the calibration was not available for this scan",
);

export function cpuView(c: CpuLoad | undefined): { average_percent: number; peak_percent: number } | Record<string, never> {
  return c ? { average_percent: c.averagePercent, peak_percent: c.peakPercent } : {};
}
