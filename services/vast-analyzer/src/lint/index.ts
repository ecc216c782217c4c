export { lintDocument, MAX_FINDINGS, MAX_PER_RULE, type LintResult } from "./engine.ts";
export { RULES, ruleById } from "./registry.ts";
export { LINT_GROUPS, type LintFinding, type LintGroup, type LintRule, type LintVersion, type Severity } from "./types.ts";
