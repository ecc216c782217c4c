import { kid, kids, textOf } from "../../xml-tree.ts";
import { attrOf } from "../context.ts";
import { attrFormat, requiresAttr, rule, under } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL, V3_UP, V4_UP, V41_UP } from "../versions.ts";
import { isNonNegativeInteger } from "../values.ts";
import type { LintRule } from "../types.ts";

// Companion ads: size, resource, click-through, how they are required and rendered.

const group = "companions" as const;
const companions = (ctx: Parameters<LintRule["check"]>[0], kind?: "inline" | "wrapper") => under(ctx, "CompanionAds", "Companion", kind);

export const companionRules: LintRule[] = [
  ...(["width", "height"] as const).map((a) =>
    requiresAttr({
      id: `vast.companion.${a}.required`, group, severity: "error", versions: ALL, spec: SPEC.companions,
      title: `<Companion> has a ${a} attribute`,
      where: (ctx) => companions(ctx), attr: a, why: "the companion slot size in pixels; publishers match slots by it",
    }),
  ),
  rule({
    id: "vast.companion.resource.required", group, severity: "error", versions: ALL, spec: SPEC.companions,
    title: "an inline <Companion> has a resource",
    *check(ctx) {
      for (const n of companions(ctx, "inline")) {
        if (!kid(n, "StaticResource") && !kid(n, "IFrameResource") && !kid(n, "HTMLResource")) {
          yield { node: n, message: "<Companion> has no <StaticResource>, <IFrameResource> or <HTMLResource>: add the companion banner; without it the slot stays empty" };
        }
      }
    },
  }),
  ...(["width", "height", "assetWidth", "assetHeight", "expandedWidth", "expandedHeight"] as const).map((a) =>
    attrFormat({
      id: `vast.companion.${a.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.integer`, group, severity: "error",
      versions: a.startsWith("asset") ? V3_UP : ALL, spec: SPEC.companions,
      title: `<Companion> ${a} is a whole number of pixels`,
      where: (ctx) => companions(ctx), attr: a, valid: isNonNegativeInteger, expected: "a whole number of pixels",
    }),
  ),
  attrFormat({
    id: "vast.companion-ads.required.enum", group, severity: "error", versions: V3_UP, spec: `${SPEC.companions}; vast3_draft.xsd, vast4.xsd, vast_4.1.xsd, vast_4.2.xsd (required: all, any, none)`,
    title: "<CompanionAds> required is all, any or none",
    where: (ctx) => ctx.all("CompanionAds"), attr: "required", valid: (v) => ["all", "any", "none"].includes(v), expected: '"all", "any" or "none"',
  }),
  attrFormat({
    id: "vast.companion.rendering-mode.enum", group, severity: "error", versions: V41_UP, spec: `${SPEC.companions}; vast_4.1.xsd, vast_4.2.xsd (renderingMode: default, end-card, concurrent)`,
    title: "<Companion> renderingMode is default, end-card or concurrent",
    where: (ctx) => companions(ctx), attr: "renderingMode", valid: (v) => ["default", "end-card", "concurrent"].includes(v), expected: '"default", "end-card" or "concurrent"',
  }),
  requiresAttr({
    id: "vast.companion-click-tracking.id.required", group, severity: "warning", versions: V4_UP, spec: `${SPEC.companions}; vast4.xsd, vast_4.1.xsd, vast_4.2.xsd (CompanionClickTracking id use="required")`,
    title: "<CompanionClickTracking> has an id",
    where: (ctx) => ctx.all("CompanionClickTracking"), attr: "id", why: "the VAST 4 schemas require it; any string naming the tracker",
  }),
  rule({
    id: "vast.companion.click-through.recommended", group, severity: "info", versions: ALL, spec: SPEC.companions,
    title: "a static companion has a <CompanionClickThrough>",
    *check(ctx) {
      for (const n of companions(ctx, "inline")) {
        if (kid(n, "StaticResource") && textOf(kid(n, "CompanionClickThrough")) === "") {
          yield { node: n, message: "<Companion> with a static image has no <CompanionClickThrough>: a click on it goes nowhere; add the landing page URL" };
        }
      }
    },
  }),
  rule({
    id: "vast.companion.alt-text.recommended", group, severity: "info", versions: ALL, spec: SPEC.companions,
    title: "a static companion has <AltText>",
    *check(ctx) {
      for (const n of companions(ctx, "inline")) {
        if (kid(n, "StaticResource") && textOf(kid(n, "AltText")) === "") yield { node: n, message: "<Companion> with a static image has no <AltText>: add a text alternative for screen readers and for slots that cannot show images" };
      }
    },
  }),
  rule({
    id: "vast.companion.creative-view.recommended", group, severity: "info", versions: ALL, spec: `${SPEC.companions}; ${SPEC.tracking} (creativeView)`,
    title: "a companion tracks creativeView",
    *check(ctx) {
      for (const n of companions(ctx, "inline")) {
        const events = kids(kid(n, "TrackingEvents"), "Tracking").map((t) => (attrOf(t, "event") ?? "").trim());
        if (!events.includes("creativeView")) yield { node: n, message: "<Companion> has no creativeView <Tracking>: companion impressions are counted by it; add <TrackingEvents><Tracking event=\"creativeView\">" };
      }
    },
  }),
  rule({
    id: "vast.companion.ad-slot-id.unique", group, severity: "warning", versions: V3_UP, spec: SPEC.companions,
    title: "adSlotId values are unique within <CompanionAds>",
    *check(ctx) {
      for (const list of ctx.all("CompanionAds")) {
        const seen = new Set<string>();
        for (const c of kids(list, "Companion")) {
          const id = (attrOf(c, "adSlotId") ?? "").trim();
          if (id === "") continue;
          if (seen.has(id)) yield { node: c, message: `<Companion adSlotId="${id}"> repeats another companion's slot: the player fills a slot once; give each companion its own slot` };
          seen.add(id);
        }
      }
    },
  }),
  rule({
    id: "vast.companion-ads.companion.required", group, severity: "warning", versions: ALL, spec: SPEC.companions,
    title: "<CompanionAds> holds at least one <Companion>",
    *check(ctx) {
      for (const n of ctx.all("CompanionAds")) if (kids(n, "Companion").length === 0) yield { node: n, message: "<CompanionAds> is empty: add the companion or remove the creative" };
    },
  }),
  rule({
    id: "vast.companion.static-resource.image", group, severity: "warning", versions: ALL, spec: SPEC.resources,
    title: "a companion's or overlay's <StaticResource> is an image",
    *check(ctx) {
      for (const r of ctx.all("StaticResource")) {
        const owner = ctx.parent(r)?.name.toLowerCase();
        if (owner !== "companion" && owner !== "nonlinear") continue;
        const t = (attrOf(r, "creativeType") ?? "").trim().toLowerCase();
        if (t !== "" && !t.startsWith("image/") && !/javascript|shockwave-flash|x-flv/.test(t)) {
          yield { node: r, message: `<StaticResource creativeType="${t}">: a static resource is shown as an image; use image/png, image/jpeg or image/gif (HTML goes in <HTMLResource> or <IFrameResource>)` };
        }
      }
    },
  }),
];
