import type { SpecSet } from "./types.ts";
import { iabSpecSet } from "./iab.ts";
import { heavyAdSpecSet } from "./heavy-ad.ts";
import { wcagSpecSet } from "./wcag.ts";

export const SPEC_SETS: ReadonlyMap<number, SpecSet> = new Map([iabSpecSet, heavyAdSpecSet, wcagSpecSet].map((s) => [s.id, s]));
