import type { TagReport } from "@cva/contracts";
import type { TagTest } from "../../types.ts";
import { bool } from "../util.ts";

export const document_write: TagTest = {
  meta: {
    id: "document_write",
    name: "Document.write()",
    data_type: "bool",
    unit: "",
    description: "1 if the creative called document.write() (uses_document_write), else 0.",
  },
  measure(report: TagReport) {
    return bool(report.usesDocumentWrite);
  },
};
