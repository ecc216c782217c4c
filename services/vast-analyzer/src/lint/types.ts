import type { XmlNode } from "../xml-tree.ts";
import type { LintContext, LintVersion } from "./context.ts";

/** error: the document breaks a requirement of its version; warning: it works in some players only, or is deprecated; info: advice. */
export type Severity = "error" | "warning" | "info";

export type { LintVersion } from "./context.ts";

/**
 * The areas rules belong to; each is one scan_results test `lint_<group>` in the VAST `xml` group, failing on any
 * `error` finding of its rules.
 */
export const LINT_GROUPS = [
  "required_elements",
  "value_formats",
  "conditional_requirements",
  "deprecated_features",
  "macros",
  "urls",
  "wrappers",
  "pods",
  "icons",
  "companions",
  "tracking_events",
  "interactive",
  "ctv",
  "structure",
  "vmap",
] as const;
export type LintGroup = (typeof LINT_GROUPS)[number];

/** What a rule's check reports: the element concerned (its path and line) and the message. */
export interface LintHit {
  node: XmlNode;
  message: string;
}

export interface LintRule {
  /** Stable id, e.g. `vast.inline.ad-system.required`; never reused for another meaning. */
  readonly id: string;
  readonly group: LintGroup;
  readonly severity: Severity;
  /** The versions the rule applies to: a document of another version is not checked by it. */
  readonly versions: readonly LintVersion[];
  /** Where the requirement comes from: the IAB specification and section (and the XSD when it states it). */
  readonly spec: string;
  /** One line for the rule catalogue. */
  readonly title: string;
  check(ctx: LintContext): Iterable<LintHit>;
}

/** One finding as reported (`VastReport.lint`). */
export interface LintFinding {
  rule: string;
  group: LintGroup;
  severity: Severity;
  message: string;
  /** XPath of the element, 1-based indexes on repeatable elements: `/VAST/Ad[1]/InLine/Creatives/Creative[1]/Linear`. */
  path: string;
  /** Line of the element's start tag in the document (0 when unknown). */
  line: number;
  spec: string;
}
