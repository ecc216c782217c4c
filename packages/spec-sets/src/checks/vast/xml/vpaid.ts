import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const vpaid: VastXmlTest = {
  meta: {
    id: "vpaid",
    name: "VPAID (deprecated)",
    data_type: "bool",
    unit: "",
    description: "1 if an ad uses VPAID (a MediaFile or InteractiveCreativeFile with apiFramework VPAID), else 0. VPAID is deprecated since VAST 4.1: SIMID (interactivity) and OMID (verification) replace it.",
  },
  measure(report: VastReport) {
    if (report.ads.length === 0) return null;
    const ads = report.ads.filter((a) => a.vpaid).map((a) => a.id || "(no id)");
    return ads.length === 0 ? 0 : { value: 1, detail: `VPAID in ad ${ads.join(", ")}: deprecated since VAST 4.1, use SIMID / OMID` };
  },
};
