import { isKnownSpecId } from "@cva/spec-sets";

// spec_id validation comes from @cva/spec-sets: the spec sets are data owned by that package, so a new set becomes
// valid at the edge without touching it.
export type SpecIdCheck = (id: number) => boolean;

export async function loadSpecIdCheck(): Promise<SpecIdCheck> {
  return isKnownSpecId;
}
