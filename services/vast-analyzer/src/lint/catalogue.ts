import { RULES } from "./registry.ts";
import { LINT_GROUPS, type LintVersion } from "./types.ts";

// The rule catalogue as Markdown (LINT-RULES.md, kept equal to the registry by test/lint-catalogue.test.ts).

const VERSIONS: readonly LintVersion[] = ["2.0", "3.0", "4.0", "4.1", "4.2", "4.3", "vmap"];

function versions(v: readonly LintVersion[]): string {
  if (v.length === 0) return "1.0";
  if (v.length === 1 && v[0] === "vmap") return "VMAP 1.0.1";
  const vast = VERSIONS.filter((x) => x !== "vmap" && v.includes(x));
  const contiguous = vast.length > 1 && VERSIONS.indexOf(vast[vast.length - 1]!) - VERSIONS.indexOf(vast[0]!) === vast.length - 1;
  if (vast.length === 6) return "all";
  if (contiguous && vast[vast.length - 1] === "4.3") return `${vast[0]}+`;
  return vast.join(", ");
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/</g, "&lt;");

export function renderCatalogue(): string {
  const lines = [
    "# VAST lint rules",
    "",
    "<!-- generated from services/vast-analyzer/src/lint (UPDATE_LINT_RULES=1 npx vitest run --project suite services/vast-analyzer/test/lint-catalogue.test.ts); do not edit -->",
    "",
    `${RULES.length} rules (${["error", "warning", "info"].map((s) => `${RULES.filter((r) => r.severity === s).length} ${s}`).join(", ")}). ` +
      `Rules per version: ${VERSIONS.map((v) => `${v === "vmap" ? "VMAP 1.0.1" : `VAST ${v}`} ${RULES.filter((r) => r.versions.includes(v)).length}`).join(", ")}; ` +
      "VAST 1.0 documents get the one rule that says they are VAST 1.0.",
    "",
  ];
  for (const g of LINT_GROUPS) {
    const rules = RULES.filter((r) => r.group === g);
    lines.push(`## ${g} (scan_results test \`lint_${g}\`, ${rules.length} rules)`, "", "| rule | severity | versions | checks | source |", "|---|---|---|---|---|");
    for (const r of rules) lines.push(`| \`${r.id}\` | ${r.severity} | ${versions(r.versions)} | ${cell(r.title)} | ${cell(r.spec)} |`);
    lines.push("");
  }
  return lines.join("\n");
}
