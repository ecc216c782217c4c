import type { HeavyAd } from "@cva/contracts";
import { bool, int, obj, orEmpty, str } from "./schema.ts";

// v3 (tag and zip render): Chrome's own Heavy Ad Intervention on the creative (services/tag-scanner/README.md,
// "heavy_ad"), beside the computed heavy_ad_network / heavy_ad_cpu tests.
export const heavyAdSchema = orEmpty(
  obj({
    checked: bool(
      "true when the creative was run a second time in a frame Chrome tags as an ad, with the intervention on and its privacy noise off; false when the first run stayed below half of every limit of Chrome's (4 MB of network, 15 s of CPU in 30 s, 60 s of CPU), so that it could not be unloaded in the scan's time",
    ),
    intervened: bool("true when Chrome unloaded the ad frame (its intervention report said HeavyAdBlocked)"),
    reason: str("Chrome's reason when it intervened: network (over 4 MB), cpu_total (over 60 s of CPU) or cpu_peak (over 15 s of CPU in any 30 s); empty otherwise"),
    watched_ms: int("milliseconds the ad frame ran under the intervention (at most Chrome's 30 s CPU window); 0 when not checked"),
    detail: str("why the second run was or was not made and how it ended, in plain words"),
  }),
  "Chrome's Heavy Ad Intervention as Chrome applies it; {} when the scanner runs without it (TAG_HEAVY_AD=0)",
);

export function heavyAdView(h: HeavyAd | undefined) {
  return h ? { checked: h.checked, intervened: h.intervened, reason: h.reason, watched_ms: h.watchedMs, detail: h.detail } : {};
}
