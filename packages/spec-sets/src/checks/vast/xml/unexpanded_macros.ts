import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const unexpanded_macros: VastXmlTest = {
  meta: {
    id: "unexpanded_macros",
    name: "Unexpanded Macros",
    data_type: "int",
    unit: "count",
    description:
      "URLs that still carry a macro no player fills (ad-server macros such as %%CACHEBUSTER%%, ${AUCTION_PRICE}, {{…}}, or bracket macros outside the IAB list); the message lists them.",
  },
  measure(report: VastReport) {
    const urls = report.unexpandedMacros;
    if (urls.length === 0) return 0;
    return { value: urls.length, detail: `unexpanded: ${urls.slice(0, 3).join(", ")}${urls.length > 3 ? `, and ${urls.length - 3} more` : ""}` };
  },
};
