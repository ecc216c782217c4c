import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const xml_schema: VastXmlTest = {
  meta: {
    id: "xml_schema",
    name: "XML Schema",
    data_type: "int",
    unit: "count",
    description:
      "Findings of validating each document of the chain against the IAB XSD of its version (line-numbered in the message). Listed only when a document was validated: the schemas are not shipped (VAST_XSD_DIR), and IAB published none for 1.0 and 4.3; the lint_* tests check every install without them.",
  },
  measure(report: VastReport) {
    // Nothing validated — no schemas configured, no schema for the version, no document parsed: the test does not
    // apply and is not listed (schema_checks say why), so passed + failed always counts every listed test.
    const checked = report.schemaChecks.filter((c) => c.schema !== "");
    if (checked.length === 0) return null;
    const findings = checked.flatMap((c) => c.findings.map((f) => `hop ${c.hop} (${c.schema}) line ${f.line}: ${f.message}`));
    if (findings.length === 0) return { value: 0, detail: `valid against ${[...new Set(checked.map((c) => c.schema))].join(", ")}` };
    return { value: findings.length, detail: findings.slice(0, 5).join("; ") + (findings.length > 5 ? `; and ${findings.length - 5} more` : "") };
  },
};
