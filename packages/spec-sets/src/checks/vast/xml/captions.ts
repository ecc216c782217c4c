import type { VastReport } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

/** The VAST linter's rule that finds a video Linear without <ClosedCaptionFiles> (vast-analyzer lint/rules/ctv.ts). */
export const NO_CAPTIONS_RULE = "vast.ctv.closed-captions.recommended";

const atLeast41 = (v: string) => {
  const m = /^(\d+)(?:\.(\d+))?/.exec(v.trim());
  return !!m && (Number(m[1]) > 4 || (Number(m[1]) === 4 && Number(m[2] ?? 0) >= 1));
};

export const captions: VastXmlTest = {
  meta: {
    id: "captions",
    name: "Captions (WCAG 1.2.2)",
    data_type: "int",
    unit: "count",
    description:
      "Video Linears (<MediaFiles>) without closed caption files (VAST 4.1+ <ClosedCaptionFiles>), found by the VAST linter in every inline document; 0 when every video media file carries captions itself (a caption track or CEA-608/708 in its pictures, accessibility.captions of each probed file); not evaluated before VAST 4.1 otherwise, since such a document cannot declare caption files.",
  },
  measure(report: VastReport) {
    const videoFiles = report.creatives.flatMap((c) => c.mediafiles.filter((m) => /^video\//i.test(m.attributes?.type ?? "")));
    if (videoFiles.length === 0) return null;
    // Captions carried in every video file answer SC 1.2.2 whatever the XML declares (the media prober looked in each).
    if (videoFiles.every((m) => m.probe?.accessibility?.captions === true)) {
      const codecs = [...new Set(videoFiles.flatMap((m) => m.probe!.accessibility!.captionTracks.map((t) => t.codec)))].join(", ");
      return { value: 0, detail: `every video media file carries captions in the file (${codecs})` };
    }
    const missing = report.lint.filter((f) => f.rule === NO_CAPTIONS_RULE);
    if (missing.length > 0) {
      return { value: missing.length, detail: missing.slice(0, 5).map((f) => `${f.path} (line ${f.line}, hop ${f.hop})`).join("; ") };
    }
    const inline = report.wrapperChain.filter((h) => h.type === "inline").map((h) => h.vastVersion);
    const versions = inline.length > 0 ? inline : [report.vastVersion];
    if (!versions.every(atLeast41)) {
      throw new Error(`VAST ${versions.join(", ")} cannot declare caption files (<ClosedCaptionFiles> is VAST 4.1+), and not every video media file carries captions of its own`);
    }
    return { value: 0, detail: "every video <MediaFiles> declares <ClosedCaptionFiles>" };
  },
};
