import type { Rule, SpecSet } from "./types.ts";
import { iabSpecSet } from "./iab.ts";

// Spec set 1 reuses set 0's Heavy Ad rules verbatim (same figures, same citation), so the two cannot drift apart; it
// exists to show that a set is only data: a name plus a choice of rules.
const HEAVY_AD_TESTS = new Set(["heavy_ad_network", "heavy_ad_cpu", "heavy_ad_intervention"]);

export const heavyAdSpecSet: SpecSet = {
  id: 1,
  name: "Chrome Heavy Ad Intervention",
  description:
    "Only Chrome's Heavy Ad Intervention limits (> 4 MB of network data or > 15 s of main-thread CPU gets an ad unloaded). Ad tags only; a VAST scan gets no tests.",
  notes: [
    "heavy_ad_network is in bytes (Chrome's 4 MB is 4 × 1024 × 1024 bytes) over network.load_size.total.",
    "heavy_ad_cpu compares the scan's total main-thread CPU time with 15 s: exact for scans of up to 30 s, conservative beyond.",
    "heavy_ad_intervention is Chrome's own verdict: the creative run in a frame Chrome tags as an ad, with the intervention on and its privacy noise off; run only when the first run came within half of a limit.",
  ],
  rules: iabSpecSet.rules.filter((r: Rule) => r.scope === "tag" && HEAVY_AD_TESTS.has(r.test)),
  omitted: [],
};
