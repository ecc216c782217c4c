import { rule } from "../define.ts";
import type { LintRule } from "../types.ts";

// VAST 1.0 (<VideoAdServingTemplate>) is not linted rule by rule: its vocabulary is its own and IAB replaced it with
// VAST 2.0 in 2008. One finding says so.

export const VAST1_RULE_ID = "vast.vast1.obsolete";

export const vast1Rules: LintRule[] = [
  rule({
    id: VAST1_RULE_ID, group: "deprecated_features", severity: "warning", versions: [], spec: "VAST 2.0 (2008) supersedes VAST 1.0",
    title: "the document is not VAST 1.0 (<VideoAdServingTemplate>)",
    // Run by the engine for VAST 1 documents only (no version list matches them).
    *check(ctx) {
      yield { node: ctx.root, message: "<VideoAdServingTemplate> is VAST 1.0, replaced by VAST 2.0 in 2008: most players no longer parse it; serve VAST 4.x (or at least 2.0). Its elements were not linted further" };
    },
  }),
];
