import { kid, kids, textOf } from "../../xml-tree.ts";
import { tag } from "../context.ts";
import { inAds, requiresAttr, requiresChild, rule, under } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL, BEFORE_4, V41_UP } from "../versions.ts";
import type { LintRule } from "../types.ts";

// Elements and attributes every document of a version must have, per document type (InLine / Wrapper) and creative
// type (Linear / NonLinear / Companion). What a version adds (UniversalAdId, AdServingId, Verification vendor) is in
// conditional.ts; icons and companions have their own modules.

const group = "required_elements" as const;

export const requiredRules: LintRule[] = [
  requiresAttr({
    id: "vast.root.version.required", group, severity: "error", versions: ALL, spec: SPEC.root,
    title: "<VAST> has a version attribute",
    where: (ctx) => [ctx.root], attr: "version",
    message: () => `<VAST> has no version attribute: add version="4.2" (or the version the document follows); players pick the parser by it`,
  }),
  rule({
    id: "vast.root.ad-or-error.required", group, severity: "error", versions: ALL, spec: SPEC.rootError,
    title: "<VAST> holds at least one <Ad>, or an <Error> for no ad",
    *check(ctx) {
      if (kids(ctx.root, "Ad").length === 0 && kids(ctx.root, "Error").length === 0) {
        yield { node: ctx.root, message: "<VAST> holds neither an <Ad> nor an <Error>: return the ad, or for no fill an <Error> URL the player calls with error 303" };
      }
    },
  }),
  rule({
    id: "vast.ad.inline-or-wrapper.required", group, severity: "error", versions: ALL, spec: SPEC.ad,
    title: "every <Ad> holds an <InLine> or a <Wrapper>",
    *check(ctx) {
      for (const ad of kids(ctx.root, "Ad")) {
        if (!kid(ad, "InLine") && !kid(ad, "Wrapper")) yield { node: ad, message: "<Ad> holds neither <InLine> nor <Wrapper>: a player cannot use it; put the ad in <InLine> (or <Wrapper> to redirect)" };
      }
    },
  }),
  rule({
    id: "vast.ad.inline-and-wrapper", group, severity: "error", versions: ALL, spec: SPEC.ad,
    title: "an <Ad> holds only one of <InLine> and <Wrapper>",
    *check(ctx) {
      for (const ad of kids(ctx.root, "Ad")) {
        if (kid(ad, "InLine") && kid(ad, "Wrapper")) yield { node: ad, message: "<Ad> holds both <InLine> and <Wrapper>: keep one; split them into two <Ad> elements" };
      }
    },
  }),
  requiresAttr({
    id: "vast.ad.id.required", group, severity: "error", versions: ["2.0"], spec: `VAST 2.0 <Ad> id; vast_2.0.1.xsd (use="required")`,
    title: "VAST 2.0: every <Ad> has an id",
    where: (ctx) => kids(ctx.root, "Ad"), attr: "id", why: "required by VAST 2.0",
  }),
  requiresChild({
    id: "vast.inline.ad-system.required", group, severity: "error", versions: ALL, spec: SPEC.adSystem,
    title: "<InLine> has an <AdSystem>",
    where: (ctx) => ctx.select("Ad", "InLine"), child: "AdSystem",
    message: () => "<InLine> has no <AdSystem>: add <AdSystem> naming the ad server that returned the ad",
  }),
  requiresChild({
    id: "vast.inline.ad-title.required", group, severity: "error", versions: ALL, spec: SPEC.adTitle,
    title: "<InLine> has an <AdTitle>",
    where: (ctx) => ctx.select("Ad", "InLine"), child: "AdTitle",
    message: () => "<InLine> has no <AdTitle>: add <AdTitle> with the ad's name (shown in ad-ops reports)",
  }),
  rule({
    id: "vast.inline.impression.required", group, severity: "error", versions: ALL, spec: SPEC.impression,
    title: "<InLine> has at least one non-empty <Impression>",
    *check(ctx) {
      for (const n of ctx.select("Ad", "InLine")) {
        const imps = kids(n, "Impression");
        if (imps.length === 0) yield { node: n, message: "<InLine> has no <Impression>: add the impression URL the player calls when the ad starts; without it the delivery is not counted" };
      }
    },
  }),
  rule({
    id: "vast.inline.creatives.required", group, severity: "error", versions: ALL, spec: SPEC.creatives,
    title: "<InLine> has <Creatives> with at least one <Creative>",
    *check(ctx) {
      for (const n of ctx.select("Ad", "InLine")) {
        const c = kid(n, "Creatives");
        if (!c) yield { node: n, message: "<InLine> has no <Creatives>: add <Creatives><Creative>… with the Linear, NonLinear or companion ad" };
        else if (kids(c, "Creative").length === 0) yield { node: c, message: "<Creatives> holds no <Creative>: add at least one <Creative>" };
      }
    },
  }),
  requiresChild({
    id: "vast.wrapper.ad-system.required", group, severity: "error", versions: ALL, spec: SPEC.wrapper,
    title: "<Wrapper> has an <AdSystem>",
    where: (ctx) => ctx.select("Ad", "Wrapper"), child: "AdSystem",
    message: () => "<Wrapper> has no <AdSystem>: add <AdSystem> naming the ad server of this wrapper",
  }),
  requiresChild({
    id: "vast.wrapper.vast-ad-tag-uri.required", group, severity: "error", versions: ALL, spec: SPEC.wrapper,
    title: "<Wrapper> has a <VASTAdTagURI>",
    where: (ctx) => ctx.select("Ad", "Wrapper"), child: "VASTAdTagURI",
    message: () => "<Wrapper> has no <VASTAdTagURI>: add the URI of the next VAST document; without it the wrapper leads nowhere (error 303)",
  }),
  requiresChild({
    id: "vast.wrapper.impression.required", group, severity: "error", versions: ALL, spec: SPEC.wrapper,
    title: "<Wrapper> has at least one <Impression>",
    where: (ctx) => ctx.select("Ad", "Wrapper"), child: "Impression",
    message: () => "<Wrapper> has no <Impression>: the schemas of every version require one; add this ad server's impression URL",
  }),
  requiresChild({
    id: "vast.wrapper.creatives.required", group, severity: "warning", versions: BEFORE_4, spec: `VAST 2.0/3.0 <Wrapper>; vast_2.0.1.xsd, vast3_draft.xsd (Creatives minOccurs=1)`,
    title: "VAST 2.0/3.0: <Wrapper> has <Creatives>",
    where: (ctx) => ctx.select("Ad", "Wrapper"), child: "Creatives",
    message: () => "<Wrapper> has no <Creatives>: the VAST 2.0 and 3.0 schemas require it; add <Creatives/> (or the wrapper's tracking creatives)",
  }),
  rule({
    id: "vast.creative.content.required", group, severity: "error", versions: ALL, spec: SPEC.creative,
    title: "an inline <Creative> holds <Linear>, <NonLinearAds> or <CompanionAds>",
    *check(ctx) {
      for (const c of inAds(ctx, "inline", "Creative")) {
        if (!kid(c, "Linear") && !kid(c, "NonLinearAds") && !kid(c, "CompanionAds")) {
          yield { node: c, message: "<Creative> holds no <Linear>, <NonLinearAds> or <CompanionAds>: it has nothing to show; add the ad or remove the creative" };
        }
      }
    },
  }),
  requiresChild({
    id: "vast.linear.duration.required", group, severity: "error", versions: ALL, spec: SPEC.duration,
    title: "an inline <Linear> has a <Duration>",
    where: (ctx) => inAds(ctx, "inline", "Linear"), child: "Duration",
    message: () => "<Linear> has no <Duration>: add <Duration>HH:MM:SS.mmm</Duration>; players need it for quartiles and skip",
  }),
  requiresChild({
    id: "vast.linear.media-files.required", group, severity: "error", versions: ALL, spec: SPEC.mediaFiles,
    title: "an inline <Linear> has <MediaFiles>",
    where: (ctx) => inAds(ctx, "inline", "Linear"), child: "MediaFiles",
    message: () => "<Linear> has no <MediaFiles>: add <MediaFiles> with at least one <MediaFile>; without one the player has nothing to play (error 403)",
  }),
  requiresChild({
    id: "vast.media-files.media-file.required", group, severity: "error", versions: ALL, spec: SPEC.mediaFiles,
    title: "<MediaFiles> holds at least one <MediaFile>",
    where: (ctx) => inAds(ctx, "inline", "MediaFiles"), child: "MediaFile",
    message: () => "<MediaFiles> holds no <MediaFile>: add at least one playable file (a Mezzanine or an interactive file alone cannot play)",
  }),
  ...(["delivery", "type", "width", "height"] as const).map((a) =>
    requiresAttr({
      id: `vast.media-file.${a}.required`, group, severity: "error", versions: ALL, spec: SPEC.mediaFile,
      title: `<MediaFile> has a ${a} attribute`,
      where: (ctx) => under(ctx, "MediaFiles", "MediaFile", "inline"), attr: a,
      message: (n) => `<MediaFile> has no ${a} attribute: add ${a}="${{ delivery: "progressive", type: "video/mp4", width: "1920", height: "1080" }[a]}"; players choose a file by ${a === "delivery" ? "its delivery" : a === "type" ? "its MIME type" : "its size"}${textOf(n) ? ` (${textOf(n).slice(0, 60)})` : ""}`,
    }),
  ),
  rule({
    id: "vast.media-file.url.required", group, severity: "error", versions: ALL, spec: SPEC.mediaFile,
    title: "<MediaFile> holds a URL",
    *check(ctx) {
      for (const n of under(ctx, "MediaFiles", "MediaFile", "inline")) {
        if (textOf(n) === "") yield { node: n, message: "<MediaFile> is empty: put the file's URL in it (in CDATA)" };
      }
    },
  }),
  ...(["delivery", "type", "width", "height"] as const).map((a) =>
    requiresAttr({
      id: `vast.mezzanine.${a}.required`, group, severity: "error", versions: V41_UP, spec: SPEC.mezzanine,
      title: `<Mezzanine> has a ${a} attribute (4.1+)`,
      where: (ctx) => under(ctx, "MediaFiles", "Mezzanine", "inline"), attr: a, why: "required since VAST 4.1; ad-stitching servers read it before downloading",
    }),
  ),
  ...(["width", "height"] as const).map((a) =>
    requiresAttr({
      id: `vast.nonlinear.${a}.required`, group, severity: "error", versions: ["2.0", "3.0", "4.1", "4.2", "4.3"], spec: `${SPEC.nonLinear} (vast4.xsd leaves it optional)`,
      title: `an inline <NonLinear> has a ${a} attribute`,
      where: (ctx) => under(ctx, "NonLinearAds", "NonLinear", "inline"), attr: a, why: "the overlay's size in pixels; players place it by it",
    }),
  ),
  rule({
    id: "vast.nonlinear.resource.required", group, severity: "error", versions: ALL, spec: SPEC.nonLinear,
    title: "an inline <NonLinear> has a resource",
    *check(ctx) {
      for (const n of under(ctx, "NonLinearAds", "NonLinear", "inline")) {
        if (!kid(n, "StaticResource") && !kid(n, "IFrameResource") && !kid(n, "HTMLResource")) {
          yield { node: n, message: "<NonLinear> has no <StaticResource>, <IFrameResource> or <HTMLResource>: add the overlay's resource; without it nothing is shown" };
        }
      }
    },
  }),
  requiresChild({
    id: "vast.nonlinear-ads.nonlinear.required", group, severity: "error", versions: ALL, spec: SPEC.nonLinear,
    title: "inline <NonLinearAds> holds at least one <NonLinear>",
    where: (ctx) => inAds(ctx, "inline", "NonLinearAds"), child: "NonLinear",
    message: () => "<NonLinearAds> holds no <NonLinear>: add the overlay, or remove the empty creative",
  }),
  requiresAttr({
    id: "vast.static-resource.creative-type.required", group, severity: "error", versions: ALL, spec: SPEC.resources,
    title: "<StaticResource> has a creativeType",
    where: (ctx) => ctx.all("StaticResource").filter((n) => ctx.parent(n)?.name.toLowerCase() !== "iconclickfallbackimage"),
    attr: "creativeType", why: "the MIME type of the file, e.g. image/png; players decide how to render it by it",
  }),
  rule({
    id: "vast.creative-resource.empty", group, severity: "error", versions: ALL, spec: SPEC.resources,
    title: "a <StaticResource>, <IFrameResource> or <HTMLResource> is not empty",
    *check(ctx) {
      for (const name of ["StaticResource", "IFrameResource", "HTMLResource"]) {
        for (const n of ctx.all(name)) if (textOf(n) === "") yield { node: n, message: `${tag(n)} is empty: put the resource's URL (or for HTMLResource its markup) in it, in CDATA` };
      }
    },
  }),
  requiresAttr({
    id: "vast.tracking.event.required", group, severity: "error", versions: ALL, spec: SPEC.tracking,
    title: "<Tracking> has an event attribute",
    where: (ctx) => under(ctx, "TrackingEvents", "Tracking").filter((n) => !ctx.ancestor(n, "Verification")),
    attr: "event", why: "the player fires the URL when that event happens; without it the URL is never called",
  }),
  rule({
    id: "vast.inline.error.recommended", group, severity: "info", versions: ALL, spec: SPEC.error,
    title: "an <InLine> has an <Error> URL",
    *check(ctx) {
      const rootError = kids(ctx.root, "Error").some((e) => textOf(e) !== "");
      for (const n of ctx.select("Ad", "InLine")) {
        if (!rootError && !kids(n, "Error").some((e) => textOf(e) !== "")) {
          yield { node: n, message: "<InLine> has no <Error> URL: add one with [ERRORCODE] so playback failures reach the ad server instead of failing silently" };
        }
      }
    },
  }),
];
