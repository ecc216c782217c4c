import { kid, kids, textOf } from "../../xml-tree.ts";
import { attrOf, tag } from "../context.ts";
import { rule, under } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL, V3_UP, V4_UP, V41_UP } from "../versions.ts";
import type { LintRule } from "../types.ts";

// Features a version deprecated or removed, and technology players no longer run (Flash).

const group = "deprecated_features" as const;
const isVpaid = (v: string | undefined) => (v ?? "").trim().toUpperCase().startsWith("VPAID");
const FLASH = /shockwave-flash|x-flv|futuresplash/i;

export const deprecatedRules: LintRule[] = [
  rule({
    id: "vast.vpaid.deprecated", group, severity: "warning", versions: V41_UP, spec: SPEC.vpaid,
    title: "VAST 4.1+: no VPAID (apiFramework=\"VPAID\")",
    *check(ctx) {
      for (const n of ctx.elements) {
        if (isVpaid(attrOf(n, "apiFramework"))) {
          yield { node: n, message: `${tag(n)} apiFramework="${attrOf(n, "apiFramework")}": VPAID is deprecated since VAST 4.1 and CTV, mobile apps and many web players do not run it; deliver the video as a <MediaFile>, interactivity as SIMID and measurement as OMID <AdVerifications>` };
        }
      }
    },
  }),
  rule({
    id: "vast.media-file.api-framework.interactive-file", group, severity: "info", versions: V4_UP, spec: SPEC.interactiveFile,
    title: "VAST 4.x: interactive code in <InteractiveCreativeFile>, not <MediaFile apiFramework>",
    *check(ctx) {
      for (const n of under(ctx, "MediaFiles", "MediaFile")) {
        const api = attrOf(n, "apiFramework");
        // VPAID in 4.1+ is the deprecation rule's finding.
        if (api === undefined || api.trim() === "" || (isVpaid(api) && ctx.version !== "4.0")) continue;
        yield { node: n, message: `<MediaFile apiFramework="${api}">: VAST 4 separates media from code; move interactive files to <InteractiveCreativeFile> and keep <MediaFile> for video or audio` };
      }
    },
  }),
  rule({
    id: "vast.flash.deprecated", group, severity: "warning", versions: ALL, spec: SPEC.flash,
    title: "no Flash (SWF, FLV) media or resources",
    *check(ctx) {
      for (const n of [...ctx.all("MediaFile"), ...ctx.all("Mezzanine")]) {
        const t = attrOf(n, "type") ?? "";
        if (FLASH.test(t) || /\.swf(\?|$)/i.test(textOf(n))) yield { node: n, message: `${tag(n)} type="${t}" is Flash: no browser, app or CTV player runs Flash since 2020; deliver MP4 (H.264) or WebM` };
      }
      for (const n of ctx.all("StaticResource")) {
        const t = attrOf(n, "creativeType") ?? "";
        if (FLASH.test(t) || /\.swf(\?|$)/i.test(textOf(n))) yield { node: n, message: `<StaticResource creativeType="${t}"> is Flash: replace it with an image (PNG, JPEG, GIF) or an HTML resource` };
      }
    },
  }),
  rule({
    id: "vast.ad.conditional-ad.deprecated", group, severity: "warning", versions: V41_UP, spec: `${SPEC.ad} (conditionalAd deprecated in 4.1)`,
    title: "VAST 4.1+: no conditionalAd",
    *check(ctx) {
      for (const ad of kids(ctx.root, "Ad")) {
        if (attrOf(ad, "conditionalAd") !== undefined) yield { node: ad, message: "<Ad conditionalAd> is deprecated since VAST 4.1 (it existed for VPAID pre-fetch): remove it" };
      }
    },
  }),
  rule({
    id: "vast.survey.deprecated", group, severity: "warning", versions: V41_UP, spec: SPEC.survey,
    title: "VAST 4.1+: no <Survey>",
    *check(ctx) {
      for (const n of ctx.all("Survey")) yield { node: n, message: "<Survey> is deprecated since VAST 4.1: remove it and deliver survey measurement through <AdVerifications>" };
    },
  }),
  rule({
    id: "vast.creative.ad-id.spelling", group, severity: "info", versions: V3_UP, spec: SPEC.creative,
    title: "VAST 3+: <Creative> uses adId, not the VAST 2 AdID",
    *check(ctx) {
      for (const n of ctx.all("Creative")) {
        for (const k of n.attrs.keys()) {
          if (k.toLowerCase() === "adid" && k !== "adId") yield { node: n, message: `<Creative ${k}="…">: VAST 3 and later spell it adId; rename the attribute` };
        }
      }
    },
  }),
  rule({
    id: "vast.extensions.ad-verifications.legacy", group, severity: "info", versions: V41_UP, spec: SPEC.verification,
    title: "VAST 4.1+: <AdVerifications> in the ad, not in an <Extension>",
    *check(ctx) {
      for (const e of ctx.all("Extension")) {
        const t = (attrOf(e, "type") ?? "").toLowerCase();
        if (t === "adverifications" || kid(e, "AdVerifications")) {
          yield { node: e, message: "<Extension type=\"AdVerifications\"> is the pre-4.1 way to carry Open Measurement: since VAST 4.1 put <AdVerifications> directly in <InLine> or <Wrapper>" };
        }
      }
    },
  }),
  rule({
    id: "vast.creative-extensions.linear.version", group, severity: "info", versions: ["3.0"], spec: "VAST 3.0 <CreativeExtensions>; vast3_draft.xsd",
    title: "VAST 3.0: <CreativeExtensions> belongs in <Creative>, not <Linear>",
    *check(ctx) {
      for (const n of ctx.all("CreativeExtensions")) {
        if (ctx.parent(n)?.name.toLowerCase() === "linear") yield { node: n, message: "<CreativeExtensions> inside <Linear>: the VAST 3.0 draft schema put it there, VAST 4 moved it to <Creative>; players of either read it from <Creative>" };
      }
    },
  }),
];
