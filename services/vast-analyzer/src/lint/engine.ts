import { kids, type XmlNode } from "../xml-tree.ts";
import { createContext, indexDocument, type DocumentIndex } from "./context.ts";
import { RULES } from "./registry.ts";
import { VAST1_RULE_ID } from "./rules/vast1.ts";
import { ALL, lintVersionOf } from "./versions.ts";
import { attr } from "../xml-tree.ts";
import type { LintFinding, LintRule, LintVersion } from "./types.ts";

// Runs the rules that apply to a document's version over its parsed tree. Budgets: a rule reports at most
// MAX_PER_RULE findings per document (the last one says how many more it left out), a document at most MAX_FINDINGS.
// A rule that throws is a bug in the rule, not in the creative: it is skipped and named in `failedRules`.

export const MAX_PER_RULE = 20;
export const MAX_FINDINGS = 500;

export interface LintResult {
  findings: LintFinding[];
  /** Rules run (over the document and any VAST it embeds). */
  rulesRun: number;
  /** The version the document was linted as: 2.0 … 4.3, "vmap", "1.0", or "" when unknown. */
  version: string;
  failedRules: string[];
}

const VERSION_INDEPENDENT = RULES.filter((r) => ALL.every((v) => r.versions.includes(v)));

function rulesFor(version: LintVersion | undefined): LintRule[] {
  return version === undefined ? VERSION_INDEPENDENT : RULES.filter((r) => r.versions.includes(version));
}

function run(root: XmlNode, version: LintVersion | undefined, rules: readonly LintRule[], index: DocumentIndex, out: LintResult): void {
  const ctx = createContext(root, version, index);
  for (const r of rules) {
    if (out.findings.length >= MAX_FINDINGS) return;
    let n = 0;
    try {
      for (const hit of r.check(ctx)) {
        n++;
        if (n > MAX_PER_RULE) continue;
        out.findings.push({ rule: r.id, group: r.group, severity: r.severity, message: hit.message, path: index.pathOf(hit.node), line: hit.node.line, spec: r.spec });
      }
    } catch {
      out.failedRules.push(r.id);
      continue;
    }
    if (n > MAX_PER_RULE) {
      const last = out.findings[out.findings.length - 1]!;
      last.message += ` (and ${n - MAX_PER_RULE} more findings of this rule in the document, not listed)`;
    }
  }
  out.rulesRun += rules.length;
}

/** Lints one parsed document: VAST 2.0–4.3, VMAP (with the VAST documents it embeds), or VAST 1.0 (one finding). */
export function lintDocument(docRoot: XmlNode): LintResult {
  const out: LintResult = { findings: [], rulesRun: 0, version: "", failedRules: [] };
  const index = indexDocument(docRoot);
  const name = docRoot.name.toLowerCase();
  if (name === "videoadservingtemplate") {
    out.version = "1.0";
    run(docRoot, undefined, RULES.filter((r) => r.id === VAST1_RULE_ID), index, out);
    return out;
  }
  if (name === "vmap") {
    out.version = "vmap";
    run(docRoot, "vmap", rulesFor("vmap"), index, out);
    for (const b of kids(docRoot, "AdBreak")) {
      for (const vast of kids(kids(kids(b, "AdSource")[0], "VASTAdData")[0], "VAST")) lintVast(vast, index, out);
    }
    out.findings.splice(MAX_FINDINGS);
    return out;
  }
  if (name !== "vast") return out;
  const version = lintVast(docRoot, index, out);
  out.version = version ?? "";
  out.findings.splice(MAX_FINDINGS);
  return out;
}

function lintVast(root: XmlNode, index: DocumentIndex, out: LintResult): LintVersion | undefined {
  const version = lintVersionOf(attr(root, "version") ?? "");
  run(root, version, rulesFor(version), index, out);
  return version;
}
