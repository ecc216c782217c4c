import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";

export const minified: ZipTest = {
  meta: {
    id: "minified",
    name: "CSS/JS Minified",
    data_type: "bool",
    unit: "",
    description: "The report's minified: 1 when no CSS or JavaScript file could be reduced by more than 5 %, else 0; not evaluated when not every file could be checked.",
  },
  measure(report: ZipReport) {
    if (report.notMeasured.includes("minified")) {
      throw new Error(`minified was not measured${report.errors[0] ? `: ${report.errors[0]}` : ""}`);
    }
    return report.minified ? 1 : { value: 0, detail: "at least one CSS or JavaScript file shrinks by more than 5 % when minified" };
  },
};
