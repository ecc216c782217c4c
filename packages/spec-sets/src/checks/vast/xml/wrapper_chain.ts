import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const wrapper_chain: VastXmlTest = {
  meta: {
    id: "wrapper_chain",
    name: "Wrapper Chain",
    data_type: "bool",
    unit: "",
    description:
      "1 if the wrapper chain ends in an inline ad: every VASTAdTagURI answered with a VAST document — else 0, naming the hop that failed and why (DNS, refused, time-out, TLS, HTTP error, malformed, loop, limit, no fill); not applicable when the VAST URL is not a wrapper.",
  },
  measure(report: VastReport) {
    const hops = report.wrapperChain;
    if (hops.length === 0 || hops[0]!.type !== "wrapper") return null;
    const failed = hops.findIndex((h) => h.error !== "");
    const last = hops[hops.length - 1]!;
    if (failed < 0 && last.type === "inline") {
      return { value: 1, detail: `${hops.length - 1} wrapper hop(s) to an inline ad` };
    }
    const at = failed < 0 ? hops.length - 1 : failed;
    const hop = hops[at]!;
    return { value: 0, detail: `the chain stops at hop ${at} (${hop.url}): ${hop.error || `a ${hop.type} document, not an ad`}` };
  },
};
