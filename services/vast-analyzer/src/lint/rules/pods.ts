import { kid, kids } from "../../xml-tree.ts";
import { attrOf } from "../context.ts";
import { rule } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL, V3_UP, V4_UP } from "../versions.ts";
import { isPositiveInteger } from "../values.ts";
import type { LintRule } from "../types.ts";

// Ad pods (VAST 3+): ads with a sequence play in that order; ads without one are stand-alone fall-backs.

const group = "pods" as const;
const sequenced = (ctx: Parameters<LintRule["check"]>[0]) =>
  kids(ctx.root, "Ad").filter((a) => isPositiveInteger(attrOf(a, "sequence") ?? ""));

export const podRules: LintRule[] = [
  rule({
    id: "vast.pod.sequence.duplicate", group, severity: "error", versions: V3_UP, spec: SPEC.pods,
    title: "no two ads of a pod share a sequence number",
    *check(ctx) {
      const seen = new Map<number, boolean>();
      for (const ad of sequenced(ctx)) {
        const s = Number(attrOf(ad, "sequence")!.trim());
        if (seen.has(s)) yield { node: ad, message: `<Ad sequence="${s}"> repeats a sequence number of this pod: players cannot tell the order; number the pod's ads 1, 2, 3, …` };
        seen.set(s, true);
      }
    },
  }),
  rule({
    id: "vast.pod.sequence.gap", group, severity: "info", versions: V3_UP, spec: SPEC.pods,
    title: "a pod's sequence numbers run 1, 2, 3 … without gaps",
    *check(ctx) {
      const ads = sequenced(ctx);
      const nums = [...new Set(ads.map((a) => Number(attrOf(a, "sequence")!.trim())))].sort((a, b) => a - b);
      if (nums.length > 0 && (nums[0] !== 1 || nums[nums.length - 1] !== nums.length)) {
        yield { node: ads[0]!, message: `the pod's sequence numbers are ${nums.join(", ")}: players order by them, but a gap or a pod not starting at 1 often means a missing ad; number them 1 to ${nums.length}` };
      }
    },
  }),
  rule({
    id: "vast.pod.sequence.version", group, severity: "warning", versions: ["2.0"], spec: "VAST 3.0 §2.3.1 ad pods (introduced in 3.0); vast_2.0.1.xsd (no Ad sequence)",
    title: "VAST 2.0: no pods (<Ad sequence>)",
    *check(ctx) {
      for (const ad of kids(ctx.root, "Ad")) {
        if (attrOf(ad, "sequence") !== undefined) yield { node: ad, message: "<Ad sequence> in a VAST 2.0 document: pods came with VAST 3.0 and VAST 2 players play only the first ad; declare version 3.0 or later" };
      }
    },
  }),
  rule({
    id: "vast.ad.id.unique", group, severity: "warning", versions: ALL, spec: SPEC.ad,
    title: "<Ad> ids are unique in the document",
    *check(ctx) {
      const seen = new Set<string>();
      for (const ad of kids(ctx.root, "Ad")) {
        const id = (attrOf(ad, "id") ?? "").trim();
        if (id === "") continue;
        if (seen.has(id)) yield { node: ad, message: `<Ad id="${id}"> repeats the id of another ad: reporting and error tracking cannot tell them apart; give each ad its own id` };
        seen.add(id);
      }
    },
  }),
  rule({
    id: "vast.creative.sequence.duplicate", group, severity: "warning", versions: ALL, spec: SPEC.creative,
    title: "no two creatives of an ad share a sequence number",
    *check(ctx) {
      for (const creatives of ctx.all("Creatives")) {
        const seen = new Set<string>();
        for (const c of kids(creatives, "Creative")) {
          const s = (attrOf(c, "sequence") ?? "").trim();
          if (s === "") continue;
          if (seen.has(s)) yield { node: c, message: `<Creative sequence="${s}"> repeats a sequence number of this ad: number its creatives 1, 2, …` };
          seen.add(s);
        }
      }
    },
  }),
  rule({
    id: "vast.pod.wrapper.fallback-on-no-ad", group, severity: "info", versions: V4_UP, spec: SPEC.wrapperAttrs,
    title: "a pod wrapper says what happens on no ad",
    *check(ctx) {
      for (const ad of sequenced(ctx)) {
        const w = kid(ad, "Wrapper");
        if (w && attrOf(w, "fallbackOnNoAd") === undefined) {
          yield { node: w, message: "<Wrapper> in a pod has no fallbackOnNoAd: when its target returns no ad the player skips the slot; set fallbackOnNoAd=\"true\" to let it play a stand-alone ad instead" };
        }
      }
    },
  }),
];
