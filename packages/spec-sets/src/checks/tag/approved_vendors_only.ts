import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

/** Hosts contacted outside the customer's allowed_domains ("connection screening"); left out without a list. */
export const approved_vendors_only: TagTest = {
  meta: {
    id: "approved_vendors_only",
    name: "Approved Vendors Only",
    data_type: "int",
    unit: "count",
    description:
      "Hosts the creative contacted, in any consent state, that are not within the request's allowed_domains (privacy.unapproved_domains). Listed only when allowed_domains was given.",
  },
  measure(report: TagReport) {
    const p = report.privacy;
    if (!p || p.allowedDomains.length === 0) return null;
    const n = p.unapprovedDomains.length;
    if (n === 0) return 0;
    return { value: n, detail: `outside allowed_domains: ${p.unapprovedDomains.slice(0, 5).join(", ")}${n > 5 ? `, and ${n - 5} more` : ""}` };
  },
};
