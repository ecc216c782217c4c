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
      "Video Linears (<MediaFiles>) without closed caption files (VAST 4.1+ <ClosedCaptionFiles>), found by the VAST linter in every inline document; not evaluated before VAST 4.1, which cannot declare captions (captions embedded in the media file are not probed).",
  },
  measure(report: VastReport) {
    const video = report.creatives.some((c) => c.mediafiles.some((m) => /^video\//i.test(m.attributes?.type ?? "")));
    if (!video) return null;
    const missing = report.lint.filter((f) => f.rule === NO_CAPTIONS_RULE);
    if (missing.length > 0) {
      return { value: missing.length, detail: missing.slice(0, 5).map((f) => `${f.path} (line ${f.line}, hop ${f.hop})`).join("; ") };
    }
    const inline = report.wrapperChain.filter((h) => h.type === "inline").map((h) => h.vastVersion);
    const versions = inline.length > 0 ? inline : [report.vastVersion];
    if (!versions.every(atLeast41)) {
      throw new Error(`VAST ${versions.join(", ")} cannot declare caption files (<ClosedCaptionFiles> is VAST 4.1+); captions embedded in the media file are not probed`);
    }
    return { value: 0, detail: "every video <MediaFiles> declares <ClosedCaptionFiles>" };
  },
};
