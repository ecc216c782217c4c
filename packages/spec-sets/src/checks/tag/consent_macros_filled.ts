import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

/** Consent macros that reached a vendor unfilled, or that name another vendor than the one reading them. */
export const consent_macros_filled: TagTest = {
  meta: {
    id: "consent_macros_filled",
    name: "Consent Macros Filled",
    data_type: "int",
    unit: "count",
    description:
      "Consent macros (${GDPR}, ${GDPR_CONSENT_nnn}, ${ADDTL_CONSENT}, ${GPP_STRING_nnn}, ${GPP_SID}) that reached the network unfilled in a consent state, or ${GDPR_CONSENT_nnn} on a host whose vendor has another GVL id (privacy.consent_macros). Left out when the creative has none.",
  },
  measure(report: TagReport) {
    const macros = report.privacy?.consentMacros ?? [];
    if (macros.length === 0) return null;
    const bad = macros.filter((m) => !m.filled || !m.vendorMatches);
    if (bad.length === 0) return 0;
    const shown = bad.slice(0, 3).map((m) => !m.filled
      ? `${m.macro} reached ${m.host || "the network"} unfilled`
      : `${m.macro} on ${m.host} (${m.hostVendor?.name ?? "?"}, GVL id ${m.hostVendor?.gvlId ?? 0})`).join("; ");
    return { value: bad.length, detail: `${shown}${bad.length > 3 ? `; and ${bad.length - 3} more` : ""}` };
  },
};
