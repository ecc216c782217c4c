import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

/** Third-party tracking requests (pixels, measurement/analytics vendors) made while the user had refused. */
export const no_tracking_without_consent: TagTest = {
  meta: {
    id: "no_tracking_without_consent",
    name: "No Tracking Without Consent",
    data_type: "int",
    unit: "count",
    description:
      "Third-party tracking requests — measurement pixels, or any request to a measurement, analytics, verification, data-platform or social vendor — made under tcf_denied or gpp_us_opt_out (privacy.violations of kind tracking_request).",
  },
  measure(report: TagReport) {
    const p = report.privacy;
    if (!p || p.states.length === 0) return null;
    const found = p.violations.filter((v) => v.kind === "tracking_request");
    if (found.length === 0) return 0;
    const shown = found.slice(0, 3).map((v) => `${v.what} under ${v.state}`).join("; ");
    return { value: found.length, detail: `${shown}${found.length > 3 ? `; and ${found.length - 3} more` : ""}` };
  },
};
