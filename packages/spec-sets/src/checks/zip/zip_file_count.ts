import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";

export const zip_file_count: ZipTest = {
  meta: {
    id: "zip_file_count",
    name: "Zip File Count",
    data_type: "int",
    unit: "count",
    description: "Files in the zip (file_structure; OS metadata such as __MACOSX and .DS_Store not counted).",
  },
  measure(report: ZipReport) {
    return report.fileStructure.length;
  },
};
