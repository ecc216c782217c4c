import type { Rule, SpecSet } from "./types.ts";
import { iabSpecSet } from "./iab.ts";
import { EBU_R128, FILE_SOURCES } from "./file-rules.ts";

// Spec set 2: spec set 0 for EBU R128 markets (Europe and the countries that adopted R128). Every rule is set 0's —
// same figures, same citations, so the two cannot drift — except loudness and true peak, judged by EBU R128's
// -23 LUFS ±0.5 and -1 dBTP instead of ATSC A/85's -24 LKFS ±2 and -2 dBTP.
function forEbu(r: Rule): Rule {
  if (r.kind !== "fixed") return r;
  if (r.test === "loudness" && (r.scope === "video_file" || r.scope === "audio_file" || r.scope === "vast_mediafile")) {
    return {
      ...r, basis: "industry", expected: EBU_R128.window, expected_text: EBU_R128.windowText, source: EBU_R128.windowSource,
      reason: "IAB publishes no loudness figure; this set is for EBU R128 markets.",
    };
  }
  if (r.test === "true_peak" && (r.scope === "video_file" || r.scope === "audio_file")) {
    return { ...r, expected: EBU_R128.truePeakMax, expected_text: EBU_R128.truePeakText, source: EBU_R128.truePeakSource };
  }
  return r;
}

export const ebuR128SpecSet: SpecSet = {
  id: 2,
  name: "IAB guidelines, EBU R128 loudness",
  description:
    "Spec set 0 for EBU R128 markets: every test and figure of spec set 0, with loudness judged by EBU R128 (-23 LUFS ±0.5 LU, true peak at most -1 dBTP) instead of ATSC A/85.",
  notes: [
    ...iabSpecSet.notes,
    `Loudness and true peak of video files, audio files and VAST media files: EBU R128 (${FILE_SOURCES.ebuLoudness}).`,
  ],
  rules: iabSpecSet.rules.map(forEbu),
  omitted: iabSpecSet.omitted,
};
