import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { BYTES_PER_KB, vastXml } from "../../util.ts";

export const xml_file_size: VastXmlTest = {
  meta: {
    id: "xml_file_size",
    name: "XML File Size",
    data_type: "float",
    unit: "KB",
    description: "Size of the VAST document (xml.file_size), in KB of 1000 bytes.",
  },
  measure(report: VastReport) {
    return Number(vastXml(report).fileSize) / BYTES_PER_KB;
  },
};
