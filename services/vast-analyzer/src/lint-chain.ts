import { create } from "@bufbuild/protobuf";
import { VastLintFindingSchema, type VastLintFinding } from "@cva/contracts";
import type { Logger } from "@cva/platform";
import type { ChainStep } from "./chain.ts";
import { lintDocument } from "./lint/index.ts";

/**
 * The linter over every parsed document of the wrapper chain: the report's `lint` (each finding with its hop) and the
 * number of rules run per hop (0 for a document that was not parsed). A rule that throws is a bug of ours, logged,
 * never a finding about the creative.
 */
export function lintChain(steps: readonly ChainStep[], log?: Logger): { findings: VastLintFinding[]; rulesPerHop: number[] } {
  const findings: VastLintFinding[] = [];
  const rulesPerHop = steps.map((step, hop) => {
    if (!step.doc) return 0;
    const r = lintDocument(step.doc.root);
    if (r.failedRules.length > 0) log?.warn({ hop, rules: r.failedRules }, "lint rules failed on a document");
    for (const f of r.findings) findings.push(create(VastLintFindingSchema, { ...f, hop }));
    return r.rulesRun;
  });
  return { findings, rulesPerHop };
}
