import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { bool } from "../../util.ts";

/** The VAST versions IAB Tech Lab has published from 2.0 on; 1.x is obsolete and other strings are not VAST. */
export const VALID_VAST_VERSIONS: readonly string[] = ["2.0", "3.0", "4.0", "4.1", "4.2", "4.3"];

export const vast_version: VastXmlTest = {
  meta: {
    id: "vast_version",
    name: "Version",
    data_type: "bool",
    unit: "",
    description: `1 if the document declares a valid VAST version (${VALID_VAST_VERSIONS.join(", ")}), else 0.`,
  },
  measure(report: VastReport) {
    // "4" and "4.0" are the same version; normalise a bare major number.
    const v = report.vastVersion.trim();
    return bool(VALID_VAST_VERSIONS.includes(/^\d+$/.test(v) ? `${v}.0` : v));
  },
};
