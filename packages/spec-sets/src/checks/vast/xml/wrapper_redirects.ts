import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const wrapper_redirects: VastXmlTest = {
  meta: {
    id: "wrapper_redirects",
    name: "Wrapper Redirect",
    data_type: "int",
    unit: "count",
    description: "Number of VAST wrapper redirects (VASTAdTagURI) followed to reach the inline ad.",
  },
  measure(report: VastReport) {
    return report.wrapperRedirects;
  },
};
