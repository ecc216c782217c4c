import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const mezzanine: VastXmlTest = {
  meta: {
    id: "mezzanine",
    name: "Mezzanine (CTV)",
    data_type: "bool",
    unit: "",
    description: "VAST 4.x: 1 if every inline ad with a Linear creative has a <Mezzanine> file (the high-quality source CTV and ad-stitching servers transcode from), else 0; not applicable before 4.0.",
  },
  measure(report: VastReport) {
    if (!report.vastVersion.startsWith("4")) return null;
    const linearAds = report.ads.filter((a) => a.type === "inline" && a.error === "" && a.creativeIndexes.some((i) => report.creatives[i]?.type === "linear"));
    if (linearAds.length === 0) return null;
    const missing = linearAds.filter((a) => a.mezzanineUrls.length === 0).map((a) => a.id || "(no id)");
    return missing.length === 0 ? 1 : { value: 0, detail: `no <Mezzanine> in ad ${missing.join(", ")}` };
  },
};
