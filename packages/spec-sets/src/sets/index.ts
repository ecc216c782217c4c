import type { SpecSet } from "./types.ts";
import { iabSpecSet } from "./iab.ts";
import { heavyAdSpecSet } from "./heavy-ad.ts";

export const SPEC_SETS: ReadonlyMap<number, SpecSet> = new Map([iabSpecSet, heavyAdSpecSet].map((s) => [s.id, s]));
