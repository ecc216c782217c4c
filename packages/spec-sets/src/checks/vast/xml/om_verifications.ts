import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

/** A verification's faults; a script not fetched (the scan's deadline, its limit of scripts) is not judged, not a fault. */
const faultsOf = (problems: readonly string[]) => problems.filter((p) => !p.startsWith("not fetched"));

export const om_verifications: VastXmlTest = {
  meta: {
    id: "om_verifications",
    name: "Open Measurement verifications",
    data_type: "int",
    unit: "count",
    description:
      "AdVerifications (Open Measurement) that an OM SDK cannot use: no JavaScriptResource, not https, the script unreachable (fetched as the SDK loads it: non-2xx, empty, failed) or not served as JavaScript, or no VerificationParameters. Not listed for an ad without verifications. The message lists the first ones.",
  },
  measure(report: VastReport) {
    const all = report.ads.flatMap((a) => a.verifications);
    if (all.length === 0) return null;
    const faulty = all.filter((v) => faultsOf(v.problems).length > 0);
    const scope = `${all.length} verification${all.length === 1 ? "" : "s"}, ${all.filter((v) => v.reachable).length} with a reachable script`;
    if (faulty.length === 0) return { value: 0, detail: scope };
    const shown = faulty.slice(0, 3).map((v) => `${v.vendor || "(no vendor)"} (${v.javascriptResourceUrl.slice(0, 120) || "no script"}): ${faultsOf(v.problems).join("; ")}`);
    return { value: faulty.length, detail: `${scope}; ${shown.join(" | ")}${faulty.length > 3 ? ` | and ${faulty.length - 3} more` : ""}` };
  },
};
