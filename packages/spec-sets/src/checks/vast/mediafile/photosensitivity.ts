import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { fileInfo, requireMeasured } from "../../util.ts";
import { flashMeasurement } from "../../a11y.ts";

/**
 * WCAG 2.3.1 on a VAST media file: the rendition the VAST analyzer had analysed (one per Linear creative, its smallest
 * decodable progressive one; a flash is the same on every rendition) is judged as scanVideo's file is; the creative's
 * other renditions are not applicable (their accessibility names where the verdict is).
 */
export const photosensitivity: MediaFileTest = {
  meta: {
    id: "photosensitivity",
    name: "Three Flashes (WCAG 2.3.1)",
    data_type: "int",
    unit: "count",
    description:
      "Most general or red flashes in any one second of the media file (accessibility.max_flashes_per_second, max_red_flashes_per_second), from every frame by the WCAG 2.2 flash thresholds, on the one rendition of each Linear creative that is analysed (its smallest decodable progressive video); not applicable to its other renditions, to VPAID, to audio-only files or files that are not media; not evaluated when not every second was analysed and no risk was seen.",
  },
  measure(input: MediaFileInput) {
    const info = fileInfo(input);
    if (!info?.video) return null;
    const a = input.mediaFile.probe?.accessibility;
    // The analysis was asked for and did not finish: its own reason says why.
    if (a?.flashesNotJudgedReason && input.mediaFile.probe?.notMeasured.includes("accessibility.flash_risk")) {
      throw new Error(`flashing was not measured: ${a.flashesNotJudgedReason}`);
    }
    requireMeasured(input, "accessibility.flash_risk", "flashing");
    if (!a || a.framesAnalyzed === 0) return null;
    return flashMeasurement(a, "the first frame");
  },
};
