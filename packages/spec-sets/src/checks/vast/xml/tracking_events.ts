import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const QUARTILE_EVENTS = ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"];

export const tracking_events: VastXmlTest = {
  meta: {
    id: "tracking_events",
    name: "Tracking Events",
    data_type: "bool",
    unit: "",
    description: `1 if every inline ad with a Linear creative tracks ${QUARTILE_EVENTS.join(", ")} (merged along the wrapper chain), else 0 naming what is missing.`,
  },
  measure(report: VastReport) {
    const linearAds = report.ads.filter((a) => a.type === "inline" && a.error === "" && a.creativeIndexes.some((i) => report.creatives[i]?.type === "linear"));
    if (linearAds.length === 0) return null;
    const missing = linearAds.flatMap((a) => {
      const lower = new Set(a.trackingEvents.map((e) => e.toLowerCase()));
      const lacks = QUARTILE_EVENTS.filter((e) => !lower.has(e.toLowerCase()));
      return lacks.length ? [`ad ${a.id || "(no id)"}: ${lacks.join(", ")}`] : [];
    });
    return missing.length === 0 ? 1 : { value: 0, detail: `not tracked: ${missing.join("; ")}` };
  },
};
