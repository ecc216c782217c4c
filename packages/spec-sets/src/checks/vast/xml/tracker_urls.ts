import type { VastReport, VastTrackerCheck } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

/** What is wrong with one tracker URL, in words; empty when nothing is. A check that could not be made is not a fault. */
export function trackerProblems(t: VastTrackerCheck): string[] {
  const out: string[] = [];
  if (t.error !== "" && !t.error.startsWith("not checked")) out.push(t.error);
  if (t.nonProduction) out.push(`host ${t.host} is ${t.nonProduction}`);
  if (t.insecureOnHttps) out.push("http: on an https ad (mixed content)");
  out.push(...t.macroProblems);
  return out;
}

export const tracker_urls: VastXmlTest = {
  meta: {
    id: "tracker_urls",
    name: "Tracker URLs",
    data_type: "int",
    unit: "count",
    description:
      "Tracking, click, error and verification URLs with a fault: a host that does not resolve to a public address or refuses the connection, a failed TLS handshake (both checked without sending the request, when the analyzer checks hosts), a localhost/private/reserved/staging host, http: on an https ad, or a malformed or unexpanded macro. The message lists the first ones.",
  },
  measure(report: VastReport) {
    if (report.trackers.length === 0) return null;
    const faulty = report.trackers.map((t) => ({ t, p: trackerProblems(t) })).filter((x) => x.p.length > 0);
    const checked = report.trackers.filter((t) => t.networkChecked).length;
    const scope = `${report.trackers.length} tracker URLs, ${checked} with their host checked`;
    if (faulty.length === 0) return { value: 0, detail: scope };
    const shown = faulty.slice(0, 3).map(({ t, p }) => `${t.url.slice(0, 120)} (hop ${t.hop}, ${t.kind}): ${p.join("; ")}`);
    return { value: faulty.length, detail: `${scope}; ${shown.join(" | ")}${faulty.length > 3 ? ` | and ${faulty.length - 3} more` : ""}` };
  },
};
