import type { LintVersion } from "./types.ts";

// Version sets rules are declared with. VAST 2.0.1 is 2.0 (an erratum); a document's version attribute is mapped to
// one of these by `lintVersionOf`.

export const ALL: readonly LintVersion[] = ["2.0", "3.0", "4.0", "4.1", "4.2", "4.3"];
export const V3_UP: readonly LintVersion[] = ["3.0", "4.0", "4.1", "4.2", "4.3"];
export const V4_UP: readonly LintVersion[] = ["4.0", "4.1", "4.2", "4.3"];
export const V41_UP: readonly LintVersion[] = ["4.1", "4.2", "4.3"];
export const V42_UP: readonly LintVersion[] = ["4.2", "4.3"];
export const BEFORE_4: readonly LintVersion[] = ["2.0", "3.0"];
export const VMAP: readonly LintVersion[] = ["vmap"];

const KNOWN: Record<string, LintVersion> = {
  "2.0": "2.0", "2.0.1": "2.0", "3.0": "3.0", "4.0": "4.0", "4.1": "4.1", "4.2": "4.2", "4.3": "4.3",
};

/** The rule version of a VAST document's version attribute; undefined when it is not a published VAST version. */
export function lintVersionOf(version: string): LintVersion | undefined {
  return KNOWN[version.trim()];
}

/** Versions from `v` on (the order above). */
export function from(v: LintVersion): readonly LintVersion[] {
  return ALL.slice(ALL.indexOf(v));
}
