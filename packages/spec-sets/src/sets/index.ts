import type { SpecSet } from "./types.ts";
import { iabSpecSet } from "./iab.ts";
import { heavyAdSpecSet } from "./heavy-ad.ts";
import { ebuR128SpecSet } from "./ebu-r128.ts";
import { wcagSpecSet } from "./wcag.ts";

export const SPEC_SETS: ReadonlyMap<number, SpecSet> = new Map([iabSpecSet, heavyAdSpecSet, ebuR128SpecSet, wcagSpecSet].map((s) => [s.id, s]));
