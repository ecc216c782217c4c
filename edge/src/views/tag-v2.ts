import type { TagReport } from "@cva/contracts";
import { tagBaseSchema, tagBaseView } from "./tag-common.ts";
import { bool, obj } from "./shared.ts";

// v2 has none of animation_duration, landing_page, name, scan_results, time_to_visual_start; it adds visual_artifacts.
export const tagV2Schema = obj(
  { ...tagBaseSchema(), visual_artifacts: bool("visual artifacts detected, e.g. rendering one pixel larger than declared") },
  { description: "Ad tag report, v2" },
);

export function tagV2View(r: TagReport) {
  return { ...tagBaseView(r, "ad_tag", "v2"), visual_artifacts: r.visualArtifacts };
}
