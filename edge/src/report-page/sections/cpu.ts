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

/**
 * The `heavy_ad` fact: Chrome's own verdict on the creative in an ad frame, or whether it was needed; "" when the
 * report has none ({} when the scanner runs without it).
 */
export function heavyAdFact(v: unknown): string {
  if (!isObj(v) || typeof v.checked !== "boolean") return "";
  const detail = typeof v.detail === "string" && v.detail ? ` — ${v.detail}` : "";
  if (v.intervened === true) {
    const why = { network: "network over 4 MB", cpu_total: "CPU over 60 s", cpu_peak: "CPU over 15 s in 30 s" }[String(v.reason)] ?? String(v.reason);
    return esc(`unloaded by Chrome (${why})${detail}`);
  }
  return esc(v.checked ? `not unloaded by Chrome${detail}` : `far below Chrome's limits${detail.replace(/^ — not run in an ad frame: /, " — ")}`);
}
