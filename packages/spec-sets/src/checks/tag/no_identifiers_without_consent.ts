import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

/** Identifiers (cookies, storage writes) the creative set while the user had refused (tcf_denied, gpp_us_opt_out). */
export const no_identifiers_without_consent: TagTest = {
  meta: {
    id: "no_identifiers_without_consent",
    name: "No Identifiers Without Consent",
    data_type: "int",
    unit: "count",
    description:
      "Cookies and localStorage keys the creative set under tcf_denied or gpp_us_opt_out (privacy.violations of kind cookie or storage).",
  },
  measure(report: TagReport) {
    const p = report.privacy;
    if (!p || p.states.length === 0) return null;
    const found = p.violations.filter((v) => v.kind === "cookie" || v.kind === "storage");
    if (found.length === 0) return 0;
    const shown = found.slice(0, 5).map((v) => `${v.kind} ${v.what}${v.domain ? ` (${v.domain})` : ""} under ${v.state}`).join("; ");
    return { value: found.length, detail: `${shown}${found.length > 5 ? `; and ${found.length - 5} more` : ""}` };
  },
};
