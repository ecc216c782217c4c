import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";

export const click_tag: ZipTest = {
  meta: {
    id: "click_tag",
    name: "Click Tag",
    data_type: "bool",
    unit: "",
    description:
      "1 if index.html declares a click tag (clickTag style, click_tag_found) and uses it — its code reads it (window.open(clickTag)) or clicking the creative opened its page — else 0 saying which part is missing.",
  },
  measure(report: ZipReport) {
    if (!report.clickTagFound) return { value: 0, detail: "no clickTag is declared in index.html or a script it loads" };
    if (!report.clickTagUsed) return { value: 0, detail: "a clickTag is declared but never used: no code reads it and the click opened nothing" };
    return { value: 1, detail: "declared and used" };
  },
};
