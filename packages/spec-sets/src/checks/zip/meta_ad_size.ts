import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";

export const meta_ad_size: ZipTest = {
  meta: {
    id: "meta_ad_size",
    name: "Meta ad.size",
    data_type: "bool",
    unit: "",
    description:
      "1 if index.html declares <meta name=\"ad.size\" content=\"width=W,height=H\"> and the creative renders at exactly that size, else 0 saying which (missing, or declared vs rendered).",
  },
  measure(report: ZipReport) {
    if (!report.metaAdSize) return { value: 0, detail: "index.html has no ad.size meta tag" };
    const declared = report.render?.declaredDimensions;
    const rendered = report.render?.dimensions;
    if (!declared || !rendered || rendered.width === 0 || rendered.height === 0) {
      throw new Error("the rendered size was not measured (nothing painted)");
    }
    const d = `${declared.width}x${declared.height}`;
    const r = `${rendered.width}x${rendered.height}`;
    return d === r ? { value: 1, detail: `declared and rendered ${d}` } : { value: 0, detail: `ad.size declares ${d}, but the creative renders ${r}` };
  },
};
