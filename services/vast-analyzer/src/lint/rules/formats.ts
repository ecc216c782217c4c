import { kid, kids, textOf } from "../../xml-tree.ts";
import { attrOf, tag } from "../context.ts";
import { attrFormat, clip, inAds, rule, textFormat, under } from "../define.ts";
import { SPEC } from "../spec.ts";
import { lintVersionOf, ALL, V3_UP, V4_UP, V41_UP } from "../versions.ts";
import {
  clockSeconds, isBoolean, isClock, isCodecList, isCurrency, isDecimal, isLanguageTag, isMimeType, isNonNegativeInteger,
  isOffset, isPositiveInteger,
} from "../values.ts";
import type { LintRule } from "../types.ts";

// Value formats: time values, sizes, booleans, MIME types, enumerations. A rule judges a value only when it is there;
// a missing required value is the required_elements rule's finding, not this one's.

const group = "value_formats" as const;
const mediaFiles = (ctx: Parameters<LintRule["check"]>[0]) => under(ctx, "MediaFiles", "MediaFile", "inline");

export const formatRules: LintRule[] = [
  rule({
    id: "vast.root.version.known", group, severity: "error", versions: ALL, spec: SPEC.root,
    title: "the version is a published VAST version",
    *check(ctx) {
      const v = attrOf(ctx.root, "version");
      if (v !== undefined && lintVersionOf(v) === undefined) {
        yield { node: ctx.root, message: `<VAST> version="${clip(v)}" is not a published VAST version: write 2.0, 3.0, 4.0, 4.1, 4.2 or 4.3; only version-independent rules were checked` };
      }
    },
  }),
  textFormat({
    id: "vast.linear.duration.format", group, severity: "error", versions: ALL, spec: SPEC.duration,
    title: "<Duration> is HH:MM:SS or HH:MM:SS.mmm",
    where: (ctx) => inAds(ctx, "inline", "Duration"), valid: isClock, expected: "HH:MM:SS or HH:MM:SS.mmm (e.g. 00:00:30.000)",
  }),
  rule({
    id: "vast.linear.duration.zero", group, severity: "warning", versions: ALL, spec: SPEC.duration,
    title: "<Duration> is longer than zero",
    *check(ctx) {
      for (const d of inAds(ctx, "inline", "Duration")) {
        if (clockSeconds(textOf(d)) === 0) yield { node: d, message: "<Duration> is 00:00:00: declare the media's real length; quartile events and skip timing are computed from it" };
      }
    },
  }),
  attrFormat({
    id: "vast.linear.skipoffset.format", group, severity: "error", versions: V3_UP, spec: SPEC.skipoffset,
    title: "skipoffset is HH:MM:SS(.mmm) or n%",
    where: (ctx) => ctx.all("Linear"), attr: "skipoffset", valid: isOffset, expected: "HH:MM:SS, HH:MM:SS.mmm or a percentage such as 25%",
  }),
  rule({
    id: "vast.linear.skipoffset.beyond-duration", group, severity: "warning", versions: V3_UP, spec: SPEC.skipoffset,
    title: "skipoffset is not after the end of the ad",
    *check(ctx) {
      for (const l of inAds(ctx, "inline", "Linear")) {
        const off = attrOf(l, "skipoffset");
        const dur = clockSeconds(textOf(kid(l, "Duration")));
        const s = off === undefined ? undefined : clockSeconds(off);
        if (s !== undefined && dur !== undefined && dur > 0 && s >= dur) {
          yield { node: l, message: `<Linear> skipoffset="${off}" is at or after the end of its ${textOf(kid(l, "Duration"))} duration: the skip button never shows; lower it (typically 00:00:05)` };
        }
      }
    },
  }),
  attrFormat({
    id: "vast.media-file.delivery.enum", group, severity: "error", versions: ALL, spec: SPEC.mediaFile,
    title: "<MediaFile> delivery is progressive or streaming",
    where: mediaFiles, attr: "delivery", valid: (v) => v === "progressive" || v === "streaming", expected: '"progressive" or "streaming"',
  }),
  attrFormat({
    id: "vast.mezzanine.delivery.enum", group, severity: "error", versions: V41_UP, spec: SPEC.mezzanine,
    title: "<Mezzanine> delivery is progressive or streaming",
    where: (ctx) => under(ctx, "MediaFiles", "Mezzanine", "inline"), attr: "delivery", valid: (v) => v === "progressive" || v === "streaming", expected: '"progressive" or "streaming"',
  }),
  attrFormat({
    id: "vast.media-file.type.mime", group, severity: "error", versions: ALL, spec: SPEC.mediaFile,
    title: "<MediaFile> type is a MIME type",
    where: mediaFiles, attr: "type", valid: isMimeType, expected: "a MIME type such as video/mp4",
  }),
  ...(["width", "height"] as const).map((a) =>
    attrFormat({
      id: `vast.media-file.${a}.integer`, group, severity: "error", versions: ALL, spec: SPEC.mediaFile,
      title: `<MediaFile> ${a} is a whole number of pixels`,
      where: mediaFiles, attr: a, valid: isNonNegativeInteger, expected: "a whole number of pixels",
    }),
  ),
  attrFormat({
    id: "vast.media-file.bitrate.integer", group, severity: "error", versions: ALL, spec: SPEC.mediaFile,
    title: "<MediaFile> bitrate is a whole number of kbit/s",
    where: mediaFiles, attr: "bitrate", valid: isNonNegativeInteger, expected: "a whole number of kbit/s",
  }),
  rule({
    id: "vast.media-file.min-max-bitrate.integer", group, severity: "error", versions: V3_UP, spec: SPEC.mediaFile,
    title: "<MediaFile> minBitrate and maxBitrate are whole numbers of kbit/s",
    *check(ctx) {
      for (const n of mediaFiles(ctx)) {
        for (const a of ["minBitrate", "maxBitrate"]) {
          const v = attrOf(n, a);
          if (v !== undefined && !isNonNegativeInteger(v)) yield { node: n, message: `<MediaFile> ${a}="${clip(v)}" is not a whole number of kbit/s: write ${a} as an integer` };
        }
      }
    },
  }),
  rule({
    id: "vast.media-file.min-max-bitrate.order", group, severity: "warning", versions: V3_UP, spec: SPEC.mediaFile,
    title: "<MediaFile> minBitrate is not above maxBitrate",
    *check(ctx) {
      for (const n of mediaFiles(ctx)) {
        const lo = attrOf(n, "minBitrate");
        const hi = attrOf(n, "maxBitrate");
        if (lo && hi && isNonNegativeInteger(lo) && isNonNegativeInteger(hi) && Number(lo) > Number(hi)) {
          yield { node: n, message: `<MediaFile> minBitrate=${lo} is above maxBitrate=${hi}: swap them` };
        }
      }
    },
  }),
  ...(["scalable", "maintainAspectRatio"] as const).map((a) =>
    attrFormat({
      id: `vast.media-file.${a === "scalable" ? "scalable" : "maintain-aspect-ratio"}.boolean`, group, severity: "error", versions: ALL, spec: SPEC.mediaFile,
      title: `<MediaFile> ${a} is true or false`,
      where: mediaFiles, attr: a, valid: isBoolean, expected: '"true" or "false"',
    }),
  ),
  attrFormat({
    id: "vast.media-file.file-size.integer", group, severity: "error", versions: V41_UP, spec: SPEC.mediaFile,
    title: "<MediaFile> fileSize is a whole number of bytes",
    where: mediaFiles, attr: "fileSize", valid: isNonNegativeInteger, expected: "a whole number of bytes",
  }),
  attrFormat({
    id: "vast.media-file.media-type.enum", group, severity: "warning", versions: V41_UP, spec: SPEC.mediaFile,
    title: "<MediaFile> mediaType is 2D, 3D or 360",
    where: (ctx) => [...mediaFiles(ctx), ...under(ctx, "MediaFiles", "Mezzanine", "inline")], attr: "mediaType",
    valid: (v) => v === "2D" || v === "3D" || v === "360", expected: '"2D", "3D" or "360"',
  }),
  attrFormat({
    id: "vast.media-file.codec.rfc6381", group, severity: "warning", versions: V3_UP, spec: SPEC.mediaFile,
    title: "<MediaFile> codec is an RFC 6381 codec string",
    where: (ctx) => [...mediaFiles(ctx), ...under(ctx, "MediaFiles", "Mezzanine", "inline")], attr: "codec",
    valid: isCodecList, expected: "an RFC 6381 codec string such as avc1.4D401F or mp4a.40.2",
  }),
  ...(["width", "height", "expandedWidth", "expandedHeight"] as const).map((a) =>
    attrFormat({
      id: `vast.nonlinear.${a.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.integer`, group, severity: "error", versions: ALL, spec: SPEC.nonLinear,
      title: `<NonLinear> ${a} is a whole number of pixels`,
      where: (ctx) => under(ctx, "NonLinearAds", "NonLinear"), attr: a, valid: isNonNegativeInteger, expected: "a whole number of pixels",
    }),
  ),
  ...(["scalable", "maintainAspectRatio"] as const).map((a) =>
    attrFormat({
      id: `vast.nonlinear.${a === "scalable" ? "scalable" : "maintain-aspect-ratio"}.boolean`, group, severity: "error", versions: ALL, spec: SPEC.nonLinear,
      title: `<NonLinear> ${a} is true or false`,
      where: (ctx) => under(ctx, "NonLinearAds", "NonLinear"), attr: a, valid: isBoolean, expected: '"true" or "false"',
    }),
  ),
  attrFormat({
    id: "vast.nonlinear.min-suggested-duration.format", group, severity: "error", versions: ALL, spec: SPEC.nonLinear,
    title: "<NonLinear> minSuggestedDuration is HH:MM:SS(.mmm)",
    where: (ctx) => under(ctx, "NonLinearAds", "NonLinear"), attr: "minSuggestedDuration", valid: isClock, expected: "HH:MM:SS or HH:MM:SS.mmm",
  }),
  attrFormat({
    id: "vast.ad.conditional-ad.boolean", group, severity: "error", versions: V4_UP, spec: SPEC.ad,
    title: "<Ad> conditionalAd is true or false",
    where: (ctx) => kids(ctx.root, "Ad"), attr: "conditionalAd", valid: isBoolean, expected: '"true" or "false"',
  }),
  attrFormat({
    id: "vast.ad.ad-type.enum", group, severity: "error", versions: V41_UP, spec: `${SPEC.ad}; vast_4.1.xsd, vast_4.2.xsd (adType: video, audio, hybrid)`,
    title: "<Ad> adType is video, audio or hybrid",
    where: (ctx) => kids(ctx.root, "Ad"), attr: "adType", valid: (v) => ["video", "audio", "hybrid"].includes(v), expected: '"video", "audio" or "hybrid"',
  }),
  attrFormat({
    id: "vast.creative.sequence.integer", group, severity: "error", versions: ALL, spec: SPEC.creative,
    title: "<Creative> sequence is a whole number",
    where: (ctx) => ctx.all("Creative"), attr: "sequence", valid: isNonNegativeInteger, expected: "a whole number (1, 2, …)",
  }),
  attrFormat({
    id: "vast.pricing.model.enum", group, severity: "error", versions: V3_UP, spec: `${SPEC.pricing} (model: cpc, cpm, cpe, cpv)`,
    title: "<Pricing> model is CPM, CPC, CPE or CPV",
    where: (ctx) => ctx.all("Pricing"), attr: "model",
    valid: (v) => ["cpc", "cpm", "cpe", "cpv"].includes(v.toLowerCase()),
    expected: '"CPM", "CPC", "CPE" or "CPV"',
  }),
  rule({
    id: "vast.pricing.model.case", group, severity: "warning", versions: ["3.0"], spec: `VAST 3.0 <Pricing>; vast3_draft.xsd (model: cpc, cpm, cpe, cpv)`,
    title: "VAST 3.0: <Pricing> model is lower case",
    *check(ctx) {
      for (const n of ctx.all("Pricing")) {
        const v = attrOf(n, "model");
        if (v && ["cpc", "cpm", "cpe", "cpv"].includes(v.toLowerCase()) && v !== v.toLowerCase()) {
          yield { node: n, message: `<Pricing> model="${v}": the VAST 3.0 schema allows only lower case; write model="${v.toLowerCase()}"` };
        }
      }
    },
  }),
  attrFormat({
    id: "vast.pricing.currency.iso4217", group, severity: "error", versions: V3_UP, spec: `${SPEC.pricing} (ISO 4217)`,
    title: "<Pricing> currency is a 3-letter ISO 4217 code",
    where: (ctx) => ctx.all("Pricing"), attr: "currency", valid: isCurrency, expected: "a 3-letter ISO 4217 code such as USD or EUR",
  }),
  textFormat({
    id: "vast.pricing.value.decimal", group, severity: "error", versions: V3_UP, spec: SPEC.pricing,
    title: "<Pricing> holds a decimal number",
    where: (ctx) => ctx.all("Pricing"), valid: isDecimal, expected: "a decimal number such as 25.00",
  }),
  textFormat({
    id: "vast.expires.integer", group, severity: "error", versions: V41_UP, spec: SPEC.expires,
    title: "<Expires> is a whole number of seconds",
    where: (ctx) => ctx.all("Expires"), valid: isNonNegativeInteger, expected: "a whole number of seconds",
  }),
  attrFormat({
    id: "vast.ad-parameters.xml-encoded.boolean", group, severity: "error", versions: V3_UP, spec: SPEC.adParameters,
    title: "<AdParameters> xmlEncoded is true or false",
    where: (ctx) => ctx.all("AdParameters"), attr: "xmlEncoded", valid: isBoolean, expected: '"true" or "false"',
  }),
  attrFormat({
    id: "vast.closed-caption-file.type.mime", group, severity: "warning", versions: V41_UP, spec: SPEC.closedCaptions,
    title: "<ClosedCaptionFile> type is a MIME type",
    where: (ctx) => ctx.all("ClosedCaptionFile"), attr: "type", valid: isMimeType, expected: "a MIME type such as text/vtt or application/ttml+xml",
  }),
  attrFormat({
    id: "vast.closed-caption-file.language.bcp47", group, severity: "warning", versions: V41_UP, spec: SPEC.closedCaptions,
    title: "<ClosedCaptionFile> language is a language code",
    where: (ctx) => ctx.all("ClosedCaptionFile"), attr: "language", valid: isLanguageTag, expected: "a language code such as en or en-US",
  }),
  attrFormat({
    id: "vast.interactive-creative-file.variable-duration.boolean", group, severity: "error", versions: V41_UP, spec: SPEC.interactiveFile,
    title: "<InteractiveCreativeFile> variableDuration is true or false",
    where: (ctx) => ctx.all("InteractiveCreativeFile"), attr: "variableDuration", valid: isBoolean, expected: '"true" or "false"',
  }),
  attrFormat({
    id: "vast.js-resource.browser-optional.boolean", group, severity: "error", versions: V41_UP, spec: SPEC.verification,
    title: "<JavaScriptResource> browserOptional is true or false",
    where: (ctx) => ctx.all("JavaScriptResource"), attr: "browserOptional", valid: isBoolean, expected: '"true" or "false"',
  }),
  rule({
    id: "vast.text-element.has-children", group, severity: "error", versions: ALL, spec: SPEC.xmlStructure,
    title: "a URL or text element holds text, not elements",
    *check(ctx) {
      const textOnly = new Set(
        ["AdSystem", "AdTitle", "Impression", "Duration", "MediaFile", "ClickThrough", "ClickTracking", "Tracking", "Error", "VASTAdTagURI",
          "Description", "Advertiser", "AdServingId", "UniversalAdId", "Mezzanine", "StaticResource", "IFrameResource"].map((s) => s.toLowerCase()),
      );
      for (const n of ctx.elements) {
        if (!textOnly.has(n.name.toLowerCase()) || n.children.length === 0) continue;
        // VAST 1.0 style <URL> children are read by players that accept VAST 1 markup; they are flagged all the same.
        yield { node: n, message: `${tag(n)} holds the element <${n.children[0]!.name}>: it takes text only; put the value directly in it (in CDATA)` };
      }
    },
  }),
  attrFormat({
    id: "vast.ad-system.version.text", group, severity: "info", versions: ALL, spec: SPEC.adSystem,
    title: "<AdSystem> version is not empty",
    where: (ctx) => ctx.all("AdSystem"), attr: "version", valid: (v) => v.trim() !== "", expected: "the ad server's version (e.g. 2.3)",
  }),
  rule({
    id: "vast.inline.ad-title.empty", group, severity: "warning", versions: ALL, spec: SPEC.adTitle,
    title: "<AdTitle> and <AdSystem> are not empty",
    *check(ctx) {
      for (const body of [...ctx.select("Ad", "InLine"), ...ctx.select("Ad", "Wrapper")]) {
        for (const name of ["AdTitle", "AdSystem"]) {
          const n = kid(body, name);
          if (n && textOf(n) === "") yield { node: n, message: `${tag(n)} is empty: name the ${name === "AdTitle" ? "ad" : "ad server"}; an empty value cannot be traced in reports` };
        }
      }
    },
  }),
  attrFormat({
    id: "vast.companion.pxratio.decimal", group, severity: "error", versions: V4_UP, spec: SPEC.companions,
    title: "pxratio (Companion, Icon) is a decimal number",
    where: (ctx) => [...ctx.all("Companion"), ...ctx.all("Icon")], attr: "pxratio", valid: (v) => isDecimal(v) && Number(v) > 0, expected: "a positive decimal such as 1 or 2.0",
  }),
  attrFormat({
    id: "vast.ad.sequence.positive", group, severity: "error", versions: V3_UP, spec: SPEC.pods,
    title: "<Ad> sequence is a positive whole number",
    where: (ctx) => kids(ctx.root, "Ad"), attr: "sequence", valid: isPositiveInteger, expected: "a positive whole number (1, 2, …)",
  }),
];
