import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { bool, vastXml } from "../../util.ts";

const XML_TYPES = ["text/xml", "application/xml"];

export const xml_content_type: VastXmlTest = {
  meta: {
    id: "xml_content_type",
    name: "XML Content-Type",
    data_type: "bool",
    unit: "",
    description: "1 if the VAST document is served as text/xml or application/xml (parameters such as charset ignored), else 0.",
  },
  measure(report: VastReport) {
    const mime = (vastXml(report).contentType.split(";")[0] ?? "").trim().toLowerCase();
    return bool(XML_TYPES.includes(mime));
  },
};
