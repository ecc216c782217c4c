import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const error_url: VastXmlTest = {
  meta: {
    id: "error_url",
    name: "Error URL",
    data_type: "bool",
    unit: "",
    description: "1 if every inline ad has an <Error> URL (its own or the document's), through which a player reports why it could not play it, else 0 naming the ads.",
  },
  measure(report: VastReport) {
    const inline = report.ads.filter((a) => a.type === "inline" && a.error === "");
    if (inline.length === 0) return null;
    const missing = inline.filter((a) => a.errorUrls === 0).map((a) => a.id || "(no id)");
    return missing.length === 0 ? 1 : { value: 0, detail: `no <Error> URL in ad ${missing.join(", ")}` };
  },
};
