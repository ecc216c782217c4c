import { companionRules } from "./rules/companions.ts";
import { conditionalRules } from "./rules/conditional.ts";
import { ctvRules } from "./rules/ctv.ts";
import { deprecatedRules } from "./rules/deprecated.ts";
import { formatRules } from "./rules/formats.ts";
import { iconRules } from "./rules/icons.ts";
import { interactiveRules } from "./rules/interactive.ts";
import { macroRules } from "./rules/macros.ts";
import { podRules } from "./rules/pods.ts";
import { requiredRules } from "./rules/required.ts";
import { structureRules } from "./rules/structure.ts";
import { trackingRules } from "./rules/tracking.ts";
import { urlRules } from "./rules/urls.ts";
import { vmapRules } from "./rules/vmap.ts";
import { wrapperRules } from "./rules/wrappers.ts";
import { vast1Rules } from "./rules/vast1.ts";
import type { LintRule } from "./types.ts";

// Every rule, by area. Ids are stable: a rule that changes meaning gets a new id, and the old one is not reused.

export const RULES: readonly LintRule[] = [
  ...requiredRules,
  ...formatRules,
  ...conditionalRules,
  ...deprecatedRules,
  ...macroRules,
  ...urlRules,
  ...wrapperRules,
  ...podRules,
  ...iconRules,
  ...companionRules,
  ...trackingRules,
  ...interactiveRules,
  ...ctvRules,
  ...structureRules,
  ...vmapRules,
  ...vast1Rules,
];

const byId = new Map<string, LintRule>();
for (const r of RULES) {
  // A duplicate id is a programming error: fail at load, not with a confusing report.
  if (byId.has(r.id)) throw new Error(`duplicate lint rule id ${r.id}`);
  byId.set(r.id, r);
}

export function ruleById(id: string): LintRule | undefined {
  return byId.get(id);
}
