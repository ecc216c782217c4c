import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const universal_ad_id: VastXmlTest = {
  meta: {
    id: "universal_ad_id",
    name: "Universal Ad ID",
    data_type: "bool",
    unit: "",
    description: "VAST 4.x: 1 if every Linear/NonLinear creative of every inline ad has a <UniversalAdId> (required since VAST 4.0), else 0 naming them; not applicable before 4.0.",
  },
  measure(report: VastReport) {
    if (!report.vastVersion.startsWith("4")) return null;
    const inline = report.ads.filter((a) => a.type === "inline" && a.error === "");
    if (inline.length === 0) return null;
    const missing = inline.flatMap((a) => a.universalAdIds.map((id, i) => (id === "" ? `ad ${a.id || "(no id)"} creative ${i}` : "")).filter(Boolean));
    return missing.length === 0 ? 1 : { value: 0, detail: `no UniversalAdId: ${missing.join(", ")}` };
  },
};
