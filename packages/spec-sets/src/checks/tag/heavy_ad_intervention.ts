import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { bool } from "../util.ts";

/**
 * Chrome's own verdict (report.heavy_ad): the creative run in a frame Chrome tags as an ad, with its Heavy Ad
 * Intervention on, was unloaded. heavy_ad_network and heavy_ad_cpu compare our figures with Chrome's limits; this is
 * what Chrome did. A creative whose first run stayed below half of every limit is not run again (heavy_ad.checked
 * false) and cannot have been unloaded: 0. Not listed for a report without heavy_ad (v2, or a scanner run with
 * TAG_HEAVY_AD=0): a test the installation did not evaluate is left out, not reported as an error.
 */
export const heavy_ad_intervention: TagTest = {
  meta: {
    id: "heavy_ad_intervention",
    name: "Chrome Heavy Ad Intervention (Chrome's verdict)",
    data_type: "bool",
    unit: "",
    description: "1 if Chrome unloaded the creative's ad frame (heavy_ad.intervened), else 0.",
  },
  measure(report: TagReport) {
    if (!report.heavyAd) return null;
    return bool(report.heavyAd.intervened);
  },
};
