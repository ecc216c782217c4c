import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { vastXml } from "../../util.ts";

export const xml_http_code: VastXmlTest = {
  meta: {
    id: "xml_http_code",
    name: "HTTP Code",
    data_type: "int",
    unit: "",
    description: "HTTP status of the VAST document's response (xml.http_code).",
  },
  measure(report: VastReport) {
    return vastXml(report).httpCode;
  },
};
