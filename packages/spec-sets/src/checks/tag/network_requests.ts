import type { NetworkResponse, TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { loadSize } from "../util.ts";

/**
 * The report says how many bytes fell in each load phase but not which requests did, nor when the phase boundary
 * was. The tag scanner cuts the phases by request start time (a request started after the boundary is subload), and
 * network.responses carries the same requests with the same bytes. So the subload requests are the latest-started
 * responses whose bytes add up to host_initiated_subload, and every other request is initial load — whatever boundary
 * the scanner chose (window `load` today). The initial-load bytes cannot be matched directly because they also hold
 * the tag's own markup, which is no response. Zero-byte requests (failed ones) at the boundary count as initial: the
 * stricter reading. If the responses do not add up (the scanner changed how it counts), the test reports an error
 * rather than guess. A per-response phase or an initial request count in the report would make this direct.
 * Every request counts, pixels and failed requests included: the IAB figure is about file requests, not bytes.
 */
export const network_requests: TagTest = {
  meta: {
    id: "network_requests",
    name: "Network Requests",
    data_type: "int",
    unit: "count",
    description: "Number of file requests the creative made during the initial load phase, as split by the tag scanner.",
  },
  measure(report: TagReport) {
    const target = loadSize(report).hostInitiatedSubload;
    const responses: NetworkResponse[] = [...report.network!.responses].sort((a, b) =>
      a.startedMs < b.startedMs ? -1 : a.startedMs > b.startedMs ? 1 : 0,
    );
    let suffix = 0n;
    for (let i = responses.length; i > 0; i--) {
      if (suffix === target) return i;
      suffix += responses[i - 1]!.bytes;
      if (suffix > target) break;
    }
    if (suffix === target) return 0;
    throw new Error("network.responses do not add up to network.load_size.host_initiated_subload, so the initial-load requests cannot be told apart");
  },
};
