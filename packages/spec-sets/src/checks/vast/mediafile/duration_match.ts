import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { fileInfo, parseVastDuration } from "../../util.ts";

export const duration_match: MediaFileTest = {
  meta: {
    id: "duration_match",
    name: "Duration Match",
    data_type: "float",
    unit: "s",
    description: "Absolute difference, in seconds, between the creative's declared <Duration> and the media file's measured duration.",
  },
  measure(input: MediaFileInput) {
    const info = fileInfo(input);
    if (!info) return null;
    // A creative without a declared duration has nothing to match against (VAST requires it for linear ads, but a
    // missing one is a parse problem the VAST analyzer reports, not a duration mismatch).
    if (input.creative.duration.trim() === "") return null;
    const declared = parseVastDuration(input.creative.duration);
    const actual = info.container?.duration || info.video?.duration || 0;
    if (!(actual > 0)) throw new Error("the prober measured no duration");
    return Math.abs(declared - actual);
  },
};
