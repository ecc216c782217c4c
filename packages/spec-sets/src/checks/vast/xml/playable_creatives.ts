import type { VastCreative, VastMediaFile, VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";
import { isInteractive } from "../../util.ts";

/** Why one media file cannot be played, or "" when it can; undefined when nobody looked at it (the scan's failure). */
function mediaProblem(m: VastMediaFile): string | undefined {
  if (isInteractive(m)) return "VPAID/interactive code, not a video a player can play by itself";
  const p = m.probe;
  if (!p || p.notProbed) return undefined;
  if (p.error) return p.error;
  if (!p.fileInfo?.video && !p.fileInfo?.audio) return "no audio or video stream";
  return "";
}

/** Why a creative has nothing a player can show, "" when it has, undefined when that is unknown. */
function creativeProblem(c: VastCreative, index: number): string | undefined {
  if (c.type === "nonlinear") {
    if (c.nonLinears.length === 0) return `creative ${index} (NonLinear): no NonLinear overlay`;
    if (c.nonLinears.some((n) => n.error === "")) return "";
    return `creative ${index} (NonLinear): no overlay can be shown: ${c.nonLinears.map((n, i) => `overlay ${i}: ${n.error}`).join("; ")}`;
  }
  if (c.mediafiles.length === 0) return `creative ${index} (Linear): no MediaFile`;
  const problems = c.mediafiles.map(mediaProblem);
  if (problems.includes("")) return "";
  if (problems.includes(undefined)) return undefined;
  return `creative ${index} (Linear): no media file a player can play: ${problems.map((p, i) => `media file ${i}: ${p}`).join("; ")}`;
}

export const playable_creatives: VastXmlTest = {
  meta: {
    id: "playable_creatives",
    name: "Playable Creatives",
    data_type: "bool",
    unit: "",
    description:
      "1 if every creative of the ad has something a player can show — a Linear at least one media file that downloaded and decodes as audio/video (VPAID code and streaming playlists do not count), a NonLinear at least one overlay whose resource loaded — else 0, naming each creative that cannot play and why; not applicable to an ad without creatives (creative_count fails for it).",
  },
  measure(report: VastReport) {
    if (report.creatives.length === 0) return null;
    const results = report.creatives.map(creativeProblem);
    const problems = results.filter((r): r is string => r !== undefined && r !== "");
    if (problems.length > 0) return { value: 0, detail: problems.join(". ") };
    if (results.includes(undefined)) {
      throw new Error("not every media file was probed (the scan's failure, not the ad's), so whether every creative can play is unknown");
    }
    return 1;
  },
};
