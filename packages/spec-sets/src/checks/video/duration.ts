import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";

/**
 * The spot lengths players and buyers plan pods with: "common lengths 6/15/30 s" (spec/iab-guidelines.md, row "Video
 * renditions": IAB Digital Video Ad Format Guidelines 2016, via a secondary summary).
 */
export const ALLOWED_LENGTHS_S = [6, 15, 30] as const;
/**
 * Product tolerance: 0.5 s absorbs encoder padding (AAC priming, the last frame of 29.97 fps: a 30 s spot measures
 * 30.03 s) while a 16 s or 29 s cut still fails.
 */
export const LENGTH_TOLERANCE_S = 0.5;

export const duration: VideoFileTest = {
  meta: {
    id: "duration",
    name: "Spot Length",
    data_type: "bool",
    unit: "",
    description: `Whether the programme's duration is one of the standard spot lengths (${ALLOWED_LENGTHS_S.join(", ")} s, within ${LENGTH_TOLERANCE_S} s).`,
  },
  measure(report: VideoFileReport) {
    const ms = Number(report.durationMs);
    if (ms <= 0) throw new Error("the file states no duration");
    const s = ms / 1000;
    const nearest = ALLOWED_LENGTHS_S.reduce((a, b) => (Math.abs(b - s) < Math.abs(a - s) ? b : a));
    const ok = Math.abs(nearest - s) <= LENGTH_TOLERANCE_S;
    const shown = Number(s.toFixed(3));
    return { value: ok ? 1 : 0, detail: ok ? `${shown} s is a ${nearest} s spot` : `${shown} s is not within ${LENGTH_TOLERANCE_S} s of ${ALLOWED_LENGTHS_S.join(", ")} s (nearest ${nearest} s)` };
  },
};
