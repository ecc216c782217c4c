import { create } from "@bufbuild/protobuf";
import {
  VastCreativeSchema, VastMediaFileSchema, type MediaProbe, type Screenshot, type VastCreative,
} from "@cva/contracts";
import type { ChainStep } from "./chain.ts";
import type { FetchContext } from "./fetch-document.ts";
import type { VastLimits } from "./limits.ts";
import { flashRendition } from "./flash-rendition.ts";
import { declaredAttributes, mediaTargets, probeMedia, screenshotFrom, type MediaSession, type MediaTarget } from "./media.ts";
import { loadOverlays } from "./overlays.ts";
import { resolveVastUrl } from "./urls.ts";
import type { AdInfo } from "./vast-document.ts";
import { parseSkipOffset } from "./vast-time.ts";

export interface CreativesDeps {
  /** The scan's media session: one probe per distinct URL, within the scan's budgets (media.ts). */
  media: MediaSession;
  limits: VastLimits;
  ctx: FetchContext;
  /** Index of this ad in the report's ads[], and of its first creative in the report's creatives[]. */
  adIndex?: number;
  firstCreativeIndex?: number;
}

/**
 * The report's creatives from the inline ad: Linear creatives with their media probed, NonLinear creatives with their
 * overlay resources loaded (both concurrently, across all creatives), in document order — the index is the report's
 * creative index. `problems` says, for the report's `errors`, why a creative (or the whole ad) has nothing to play and
 * what in it is malformed.
 */
export async function reportCreatives(
  inline: ChainStep, ad: AdInfo, deps: CreativesDeps,
): Promise<{ creatives: VastCreative[]; screenshot: Screenshot | undefined; problems: string[] }> {
  const problems: string[] = [];
  const linearFiles = ad.creatives.map((c) => (c.kind === "linear" ? mediaTargets(c.mediaFiles, inline.baseUrl) : []));
  markFlashRenditions(linearFiles);
  const overlaysIn = ad.creatives.map((c) => (c.kind === "nonlinear" ? c.nonLinears : []));
  const [probes, overlays] = await Promise.all([
    probeMedia(linearFiles.flat(), { media: deps.media, concurrency: deps.limits.probeConcurrency }),
    loadOverlays(overlaysIn.flat(), inline.baseUrl, deps.ctx),
  ]);
  let k = 0;
  let o = 0;
  const first = deps.firstCreativeIndex ?? 0;
  const adIndex = deps.adIndex ?? 0;
  const creatives = ad.creatives.map((c, local): VastCreative => {
    const ci = first + local;
    if (c.kind === "nonlinear") {
      const mine = overlaysIn[local]!.map(() => overlays[o++]!);
      if (mine.length === 0) problems.push(`creative ${ci} (NonLinearAds) has no NonLinear: nothing to show`);
      return create(VastCreativeSchema, {
        type: "nonlinear",
        adIndex,
        id: c.id,
        adId: c.adId,
        clickThroughUrl: mine.find((n) => n.clickThroughUrl !== "")?.clickThroughUrl ?? "",
        // A NonLinear has no Duration; its minSuggestedDuration is the closest declared figure.
        duration: mine[0]?.minSuggestedDuration ?? "",
        nonLinears: mine,
      });
    }
    const files = linearFiles[local]!;
    const mediaProbes: MediaProbe[] = files.map(() => probes[k++]!);
    const clickThrough = c.clickThrough === "" ? "" : (resolveVastUrl(c.clickThrough, inline.baseUrl)?.href ?? c.clickThrough);
    const skip = parseSkipOffset(c.skipOffset, c.durationSeconds);
    if (c.skipOffset !== undefined && c.skipOffset.trim() !== "" && skip === undefined) {
      problems.push(`creative ${ci}: skipoffset ${JSON.stringify(c.skipOffset.slice(0, 40))} is not a time or a usable percentage`);
    }
    if (c.durationSeconds === undefined) {
      problems.push(`creative ${ci}: Duration ${JSON.stringify(c.duration.slice(0, 40))} is not HH:MM:SS(.mmm)`);
    }
    if (files.length === 0) problems.push(`creative ${ci} (Linear) has no MediaFile: a player has nothing to play`);
    return create(VastCreativeSchema, {
      type: "linear",
      adIndex,
      clickThroughUrl: clickThrough,
      duration: c.duration,
      skipOffset: skip,
      id: c.id,
      adId: c.adId,
      mediafiles: files.map((f, fi) => create(VastMediaFileSchema, { attributes: declaredAttributes(f.info), probe: mediaProbes[fi] })),
    });
  });
  if (ad.creatives.length === 0) {
    const others = ad.otherCreatives;
    const what = others.length === 0
      ? "its <Creatives> holds no <Creative>"
      : others.every((x) => x === "companion")
        ? "it has CompanionAds only, which are shown beside a video or overlay, never alone"
        : "its <Creative> elements hold neither <Linear> nor <NonLinearAds>";
    problems.push(`the inline ad${adIndex > 0 ? ` ${adIndex}` : ""} has no Linear or NonLinear creative (${what}): nothing to play`);
  }
  return { creatives, screenshot: screenshotFrom(probes), problems };
}

/**
 * Flags each Linear creative's flash rendition (flash-rendition.ts). The session probes a URL once, so a file chosen
 * in one creative is flagged wherever else it is listed: whichever listing is probed first asks for the analysis.
 */
function markFlashRenditions(perCreative: MediaTarget[][]): void {
  const chosen = new Set<string>();
  for (const files of perCreative) {
    const i = flashRendition(files.map((f) => f.info));
    const url = i === undefined ? undefined : files[i]!.url;
    if (url) chosen.add(url.href);
  }
  for (const t of perCreative.flat()) t.flashes = t.url !== undefined && chosen.has(t.url.href);
}
