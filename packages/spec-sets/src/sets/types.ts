import type { Scope } from "../types.ts";

/** Pass condition: `actual <operator> expected`. "><" means lo <= actual <= hi (both bounds included). */
export type Operator = "<" | "<=" | ">" | ">=" | "==" | "><";

/** A single bound, or [lo, hi] for "><" (serialised as "lo#hi"). */
export type Expected = number | readonly [lo: number, hi: number];

/**
 * Where a threshold comes from:
 * - "iab": a figure IAB published (a row of spec/iab-guidelines.md).
 * - "industry": a figure of another named body or platform (Chrome, EBU, players), cited in spec/iab-guidelines.md.
 * - "product_default": no published figure exists; the product chose one. `reason` says why. Never presented as IAB's.
 */
export type Basis = "iab" | "industry" | "product_default";

export interface Threshold {
  readonly operator: Operator;
  readonly expected: Expected;
  /** Human-readable, e.g. "at most 150 KB". */
  readonly expected_text: string;
}

/**
 * What a size/profile-dependent threshold is looked up by:
 * - "creative_size": "WxH" of the tag report's declared_dimensions if set, else its measured dimensions.
 * - "audio_profile": "<codec>:<profile>" of a media file's audio stream as ffprobe names them, e.g. "aac:LC".
 * A key missing from the table means "no figure for this creative": the test is left out, not failed.
 */
export type LookupKey = "creative_size" | "audio_profile";

interface RuleBase {
  /** Test id (= module file name). */
  readonly test: string;
  readonly scope: Scope;
  readonly basis: Basis;
  /** Citation: the row of spec/iab-guidelines.md and its public source. Never empty. */
  readonly source: string;
  /** Why this figure was chosen; required for product defaults. */
  readonly reason?: string;
}

export interface FixedRule extends RuleBase, Threshold {
  readonly kind: "fixed";
}

export interface LookupRule extends RuleBase {
  readonly kind: "lookup";
  readonly key: LookupKey;
  readonly operator: Operator;
  readonly table: Readonly<Record<string, { readonly expected: Expected; readonly expected_text: string }>>;
}

export type Rule = FixedRule | LookupRule;

/** A test a set deliberately leaves out, with the reason (so the data says "no figure" instead of inventing one). */
export interface Omission {
  readonly test: string;
  readonly scope: Scope;
  readonly reason: string;
}

export interface SpecSet {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  /** Notes that apply to the whole set (units, load-phase boundary, ...). */
  readonly notes: readonly string[];
  readonly rules: readonly Rule[];
  readonly omitted: readonly Omission[];
}
