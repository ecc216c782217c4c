import { num1 } from "../format.ts";
import { esc, finite, isObj } from "../html.ts";

/**
 * The `cpu` fact: the creative's load on the reference device's core (a mid-tier phone; see the API's cpu field), or
 * "" when the report has none ({} when the scanner was not calibrated) so that the fact is left out.
 */
export function cpuLoadFact(v: unknown): string {
  if (!isObj(v)) return "";
  const avg = finite(v.average_percent), peak = finite(v.peak_percent);
  if (avg === undefined || peak === undefined) return "";
  return esc(`${num1(avg)}\u00a0% average, ${num1(peak)}\u00a0% in its busiest second (of a mid-tier phone's core)`);
}
