import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";

/**
 * The report does not (yet) carry a per-response phase, so the initial phase is re-derived here from the same
 * boundary the product documents for load_size: a request belongs to the initial load when it was sent before
 * DOMContentLoaded (started_ms < dom_content_loaded_ms). If the tag scanner adopts another boundary, or adds a
 * per-response phase / an initial request count to the report, this module must follow it.
 * Every request counts, pixels and failed requests included: the IAB figure is about file requests, not bytes.
 */
export const network_requests: TagTest = {
  meta: {
    id: "network_requests",
    name: "Network Requests",
    data_type: "int",
    unit: "count",
    description: "Number of file requests sent during the initial load phase (before DOMContentLoaded).",
  },
  measure(report: TagReport) {
    if (!report.network) throw new Error("the report has no network data");
    const boundary = report.domContentLoadedMs;
    if (boundary <= 0n) throw new Error("the report has no DOMContentLoaded time to split the load phases");
    return report.network.responses.filter((r) => r.startedMs < boundary).length;
  },
};
