import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

export const xml_schema: VastXmlTest = {
  meta: {
    id: "xml_schema",
    name: "XML Schema",
    data_type: "int",
    unit: "count",
    description:
      "Findings of validating each document of the chain against the IAB XSD of its version (line-numbered in the message); not evaluated when no document could be validated (no schema for the version, or none configured).",
  },
  measure(report: VastReport) {
    // No document was parsed (nothing loaded, malformed): the other tests say why.
    if (report.schemaChecks.length === 0) return null;
    const checked = report.schemaChecks.filter((c) => c.schema !== "");
    if (checked.length === 0) {
      const why = report.schemaChecks.find((c) => c.error)?.error;
      throw new Error(why ?? "no document was loaded");
    }
    const findings = checked.flatMap((c) => c.findings.map((f) => `hop ${c.hop} (${c.schema}) line ${f.line}: ${f.message}`));
    if (findings.length === 0) return { value: 0, detail: `valid against ${[...new Set(checked.map((c) => c.schema))].join(", ")}` };
    return { value: findings.length, detail: findings.slice(0, 5).join("; ") + (findings.length > 5 ? `; and ${findings.length - 5} more` : "") };
  },
};
