import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";
import { requireFileMeasured } from "../file-util.ts";

export const captions: VideoFileTest = {
  meta: {
    id: "captions",
    name: "Captions (WCAG 1.2.2)",
    data_type: "int",
    unit: "count",
    description:
      "Caption tracks carried in the video file (accessibility.caption_tracks): subtitle streams not marked forced-only (mov_text, WebVTT, SubRip, EIA-608 tracks, …) and CEA-608/708 captions in the video's pictures. Captions delivered beside the file (a sidecar WebVTT, VAST <ClosedCaptionFiles>) cannot be seen in a raw file.",
  },
  measure(report: VideoFileReport) {
    const a = report.accessibility;
    if (!a) throw new Error("the report has no accessibility section");
    requireFileMeasured(report, "accessibility.captions", "whether the video carries captions");
    const n = a.captionTracks.length;
    if (n === 0) return { value: 0, detail: "no caption track in the file (a sidecar caption file cannot be seen in a raw video)" };
    const tracks = a.captionTracks.map((t) => `${t.codec}${t.language ? ` (${t.language})` : ""}`).join(", ");
    return { value: n, detail: tracks };
  },
};
