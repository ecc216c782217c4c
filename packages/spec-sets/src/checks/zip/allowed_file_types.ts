import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";

/** Google Ads HTML5: "CSS, JS, HTML, GIF, PNG, JPG, JPEG, SVG" (htm as a spelling of html). */
export const ALLOWED_EXTENSIONS = ["html", "htm", "css", "js", "gif", "png", "jpg", "jpeg", "svg"];

export const allowed_file_types: ZipTest = {
  meta: {
    id: "allowed_file_types",
    name: "Allowed File Types",
    data_type: "int",
    unit: "count",
    description: `Files whose type is not allowed (allowed: ${ALLOWED_EXTENSIONS.join(", ")}); the message lists them.`,
  },
  measure(report: ZipReport) {
    const bad = report.fileStructure.map((f) => f.name).filter((name) => {
      const base = name.slice(name.lastIndexOf("/") + 1);
      const dot = base.lastIndexOf(".");
      return dot <= 0 || !ALLOWED_EXTENSIONS.includes(base.slice(dot + 1).toLowerCase());
    });
    if (bad.length === 0) return 0;
    return { value: bad.length, detail: `not allowed: ${bad.slice(0, 5).join(", ")}${bad.length > 5 ? `, and ${bad.length - 5} more` : ""}` };
  },
};
