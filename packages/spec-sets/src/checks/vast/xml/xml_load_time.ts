import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { requireMeasuredField } from "../../util.ts";
import { vastXml } from "../../util.ts";

export const xml_load_time: VastXmlTest = {
  meta: {
    id: "xml_load_time",
    name: "XML Load Time",
    data_type: "int",
    unit: "ms",
    description: "Milliseconds to load the VAST document (xml.load_time_ms).",
  },
  measure(report: VastReport) {
    requireMeasuredField(report, "xml.load_time");
    return Number(vastXml(report).loadTimeMs);
  },
};
