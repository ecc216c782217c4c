import { isKnownSpecId } from "@cva/spec-sets";

// spec_id validation comes from @cva/spec-sets: the spec sets are data owned by that package, so a new set becomes
// valid at the edge without touching it. The same package computes scan_results, at the edge too (scan/outcome.ts).
export type SpecIdCheck = (id: number) => boolean;

export const knownSpecId: SpecIdCheck = isKnownSpecId;
