import { kid, kids, textOf } from "../../xml-tree.ts";
import { attrOf } from "../context.ts";
import { attrFormat, requiresAttr, rule } from "../define.ts";
import { SPEC } from "../spec.ts";
import { V3_UP, V42_UP } from "../versions.ts";
import { clockSeconds, isClock, isNonNegativeInteger } from "../values.ts";
import type { LintRule } from "../types.ts";

// Icons (VAST 3+), AdChoices above all: an icon must say where it goes and what it is, and on devices without a
// browser (CTV) the click needs a fallback image (VAST 4.2).

const group = "icons" as const;
const icons = (ctx: Parameters<LintRule["check"]>[0]) => ctx.all("Icon").filter((n) => ctx.parent(n)?.name.toLowerCase() === "icons");
const isAdChoices = (n: Parameters<typeof attrOf>[0]) => (attrOf(n, "program") ?? "").trim().toLowerCase() === "adchoices";

export const iconRules: LintRule[] = [
  ...(["program", "width", "height", "xPosition", "yPosition"] as const).map((a) =>
    requiresAttr({
      // Required by the VAST 3.0 schema; optional in the 4.x schemas (IAB's own 4.2 IconClickFallbacks sample omits
      // them), yet a player cannot place or size an icon without them: a warning, not an error.
      id: `vast.icon.${a.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.required`, group, severity: "warning", versions: V3_UP, spec: SPEC.icon,
      title: `<Icon> has a ${a} attribute`,
      where: icons, attr: a,
      why: { program: 'the industry programme, e.g. "AdChoices"', width: "pixels", height: "pixels", xPosition: "left, right or pixels from the left", yPosition: "top, bottom or pixels from the top" }[a],
    }),
  ),
  rule({
    id: "vast.icon.resource.required", group, severity: "error", versions: V3_UP, spec: SPEC.icon,
    title: "<Icon> has a resource",
    *check(ctx) {
      for (const n of icons(ctx)) {
        if (!kid(n, "StaticResource") && !kid(n, "IFrameResource") && !kid(n, "HTMLResource")) {
          yield { node: n, message: "<Icon> has no <StaticResource>, <IFrameResource> or <HTMLResource>: add the icon's image (e.g. the AdChoices logo)" };
        }
      }
    },
  }),
  attrFormat({
    id: "vast.icon.x-position.format", group, severity: "error", versions: V3_UP, spec: SPEC.icon,
    title: "<Icon> xPosition is left, right or a number",
    where: icons, attr: "xPosition", valid: (v) => /^(left|right|\d+)$/.test(v.trim()), expected: '"left", "right" or a number of pixels',
  }),
  attrFormat({
    id: "vast.icon.y-position.format", group, severity: "error", versions: V3_UP, spec: SPEC.icon,
    title: "<Icon> yPosition is top, bottom or a number",
    where: icons, attr: "yPosition", valid: (v) => /^(top|bottom|\d+)$/.test(v.trim()), expected: '"top", "bottom" or a number of pixels',
  }),
  ...(["width", "height"] as const).map((a) =>
    attrFormat({
      id: `vast.icon.${a}.integer`, group, severity: "error", versions: V3_UP, spec: SPEC.icon,
      title: `<Icon> ${a} is a whole number of pixels`,
      where: icons, attr: a, valid: isNonNegativeInteger, expected: "a whole number of pixels",
    }),
  ),
  ...(["offset", "duration"] as const).map((a) =>
    attrFormat({
      id: `vast.icon.${a}.format`, group, severity: "error", versions: V3_UP, spec: SPEC.icon,
      title: `<Icon> ${a} is HH:MM:SS(.mmm)`,
      where: icons, attr: a, valid: isClock, expected: "HH:MM:SS or HH:MM:SS.mmm",
    }),
  ),
  rule({
    id: "vast.icon.offset.beyond-duration", group, severity: "warning", versions: V3_UP, spec: SPEC.icon,
    title: "an icon appears before the ad ends",
    *check(ctx) {
      for (const n of icons(ctx)) {
        const linear = ctx.ancestor(n, "Linear");
        const dur = clockSeconds(textOf(kid(linear, "Duration")));
        const off = clockSeconds(attrOf(n, "offset") ?? "");
        if (dur !== undefined && dur > 0 && off !== undefined && off >= dur) yield { node: n, message: `<Icon> offset="${attrOf(n, "offset")}" is at or after the ad's end (${textOf(kid(linear, "Duration"))}): it never shows; lower the offset` };
      }
    },
  }),
  rule({
    id: "vast.icon.adchoices.click-through", group, severity: "warning", versions: V3_UP, spec: `${SPEC.icons}; DAA AdChoices`,
    title: "an AdChoices icon has an <IconClickThrough>",
    *check(ctx) {
      for (const n of icons(ctx).filter(isAdChoices)) {
        if (textOf(kid(kid(n, "IconClicks"), "IconClickThrough")) === "") yield { node: n, message: '<Icon program="AdChoices"> has no <IconClickThrough>: the icon must open the AdChoices page (interest-based advertising notice); add <IconClicks><IconClickThrough>' };
      }
    },
  }),
  rule({
    id: "vast.icon.program.case", group, severity: "info", versions: V3_UP, spec: SPEC.icons,
    title: "the AdChoices programme is spelled AdChoices",
    *check(ctx) {
      for (const n of icons(ctx)) {
        const p = (attrOf(n, "program") ?? "").trim();
        if (/^ad[\s_-]?choices?$/i.test(p) && p !== "AdChoices") yield { node: n, message: `<Icon program="${p}">: players that show one icon per programme match "AdChoices" exactly; write program="AdChoices"` };
      }
    },
  }),
  rule({
    id: "vast.icon.program.duplicate", group, severity: "warning", versions: V3_UP, spec: SPEC.icons,
    title: "one icon per programme in a Linear",
    *check(ctx) {
      for (const list of ctx.all("Icons")) {
        const seen = new Set<string>();
        for (const n of kids(list, "Icon")) {
          const p = (attrOf(n, "program") ?? "").trim().toLowerCase();
          if (p === "") continue;
          if (seen.has(p)) yield { node: n, message: `<Icon program="${attrOf(n, "program")}"> repeats a programme of this creative: players show one icon per programme (wrapper icons vs inline icons: the inline one wins); keep one` };
          seen.add(p);
        }
      }
    },
  }),
  rule({
    id: "vast.icon.adchoices.fallback-image", group, severity: "info", versions: V42_UP, spec: SPEC.iconFallback,
    title: "VAST 4.2+: an AdChoices icon has an <IconClickFallbackImage> for devices without a browser",
    *check(ctx) {
      for (const n of icons(ctx).filter(isAdChoices)) {
        if (!kid(kid(n, "IconClicks"), "IconClickFallbackImages")) yield { node: n, message: '<Icon program="AdChoices"> has no <IconClickFallbackImages>: CTV devices cannot open the click-through and show this image instead; add one with the AdChoices notice' };
      }
    },
  }),
  rule({
    id: "vast.icon.fallback-image.size", group, severity: "warning", versions: V42_UP, spec: SPEC.iconFallback,
    title: "<IconClickFallbackImage> has width and height in pixels",
    *check(ctx) {
      for (const n of ctx.all("IconClickFallbackImage")) {
        const w = attrOf(n, "width");
        const h = attrOf(n, "height");
        if (!w || !h || !isNonNegativeInteger(w) || !isNonNegativeInteger(h)) yield { node: n, message: "<IconClickFallbackImage> needs width and height as whole numbers of pixels: players size the fallback by them" };
      }
    },
  }),
  rule({
    id: "vast.icon.fallback-image.resource", group, severity: "error", versions: V42_UP, spec: SPEC.iconFallback,
    title: "<IconClickFallbackImage> has a <StaticResource>",
    *check(ctx) {
      for (const n of ctx.all("IconClickFallbackImage")) {
        if (textOf(kid(n, "StaticResource")) === "") yield { node: n, message: "<IconClickFallbackImage> has no <StaticResource> URL: add the image the player shows instead of opening the click-through" };
      }
    },
  }),
  rule({
    id: "vast.icon.fallback-image.alt-text", group, severity: "info", versions: V42_UP, spec: SPEC.iconFallback,
    title: "<IconClickFallbackImage> has <AltText>",
    *check(ctx) {
      for (const n of ctx.all("IconClickFallbackImage")) {
        if (textOf(kid(n, "AltText")) === "") yield { node: n, message: "<IconClickFallbackImage> has no <AltText>: add a text alternative for screen readers" };
      }
    },
  }),
  rule({
    id: "vast.icon-click-fallback-images.image.required", group, severity: "error", versions: V42_UP, spec: SPEC.iconFallback,
    title: "<IconClickFallbackImages> holds at least one <IconClickFallbackImage>",
    *check(ctx) {
      for (const n of ctx.all("IconClickFallbackImages")) {
        if (kids(n, "IconClickFallbackImage").length === 0) yield { node: n, message: "<IconClickFallbackImages> is empty: add an <IconClickFallbackImage> (the schema requires one), or remove the element" };
      }
    },
  }),
  rule({
    id: "vast.icons.icon.required", group, severity: "error", versions: V3_UP, spec: SPEC.icons,
    title: "<Icons> holds at least one <Icon>",
    *check(ctx) {
      for (const n of ctx.all("Icons")) if (kids(n, "Icon").length === 0) yield { node: n, message: "<Icons> is empty: add the <Icon>, or remove <Icons> (the schemas require at least one)" };
    },
  }),
];
