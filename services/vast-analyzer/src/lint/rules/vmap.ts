import { kid, kids, textOf } from "../../xml-tree.ts";
import { attrOf, tag } from "../context.ts";
import { attrFormat, requiresAttr, rule } from "../define.ts";
import { SPEC } from "../spec.ts";
import { VMAP } from "../versions.ts";
import { isBoolean, isClock, isHttpUrl, PERCENT } from "../values.ts";
import type { LintContext } from "../context.ts";
import type { LintRule } from "../types.ts";

// VMAP 1.0.1: ad breaks, where their ads come from, and the break tracking. The VAST documents a VMAP embeds in
// <VASTAdData> are linted as VAST documents of their own.

const group = "vmap" as const;
const VMAP_NS = "http://www.iab.net/videosuite/vmap";
const breaks = (ctx: LintContext) => kids(ctx.root, "AdBreak");
const sources = (ctx: LintContext) => breaks(ctx).flatMap((b) => kids(b, "AdSource"));
const isTimeOffset = (v: string) => /^(start|end)$/.test(v.trim()) || isClock(v) || PERCENT.test(v.trim()) || /^#\d+$/.test(v.trim());
const ALLOWED: Record<string, string[]> = {
  vmap: ["AdBreak", "Extensions"],
  adbreak: ["AdSource", "TrackingEvents", "Extensions"],
};

export const vmapRules: LintRule[] = [
  requiresAttr({
    id: "vmap.root.version.required", group, severity: "error", versions: VMAP, spec: SPEC.vmap,
    title: "<VMAP> has a version attribute", where: (ctx) => [ctx.root], attr: "version", why: 'version="1.0"',
  }),
  attrFormat({
    id: "vmap.root.version.value", group, severity: "warning", versions: VMAP, spec: SPEC.vmap,
    title: "<VMAP> version is 1.0", where: (ctx) => [ctx.root], attr: "version", valid: (v) => v.trim() === "1.0" || v.trim() === "1.0.1", expected: '"1.0" (the only VMAP version)',
  }),
  rule({
    id: "vmap.root.namespace", group, severity: "warning", versions: VMAP, spec: SPEC.vmap,
    title: "<VMAP> is in the VMAP namespace",
    *check(ctx) {
      if (![...ctx.root.attrs.values()].some((v) => v.trim() === VMAP_NS)) yield { node: ctx.root, message: `<VMAP> does not declare the VMAP namespace: add xmlns:vmap="${VMAP_NS}" and prefix the elements (vmap:VMAP, vmap:AdBreak …); players look elements up by it` };
    },
  }),
  rule({
    id: "vmap.root.ad-break.required", group, severity: "warning", versions: VMAP, spec: SPEC.vmap,
    title: "<VMAP> holds at least one <AdBreak>",
    *check(ctx) {
      if (breaks(ctx).length === 0) yield { node: ctx.root, message: "<VMAP> holds no <AdBreak>: the content plays without ads; add the breaks (start, a time, end)" };
    },
  }),
  requiresAttr({
    id: "vmap.ad-break.time-offset.required", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdBreak,
    title: "<AdBreak> has a timeOffset", where: breaks, attr: "timeOffset", why: '"start", "end", HH:MM:SS.mmm, n% or #position',
  }),
  attrFormat({
    id: "vmap.ad-break.time-offset.format", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdBreak,
    title: "<AdBreak> timeOffset is start, end, HH:MM:SS(.mmm), n% or #n",
    where: breaks, attr: "timeOffset", valid: isTimeOffset, expected: '"start", "end", HH:MM:SS.mmm, a percentage or #position',
  }),
  requiresAttr({
    id: "vmap.ad-break.break-type.required", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdBreak,
    title: "<AdBreak> has a breakType", where: breaks, attr: "breakType", why: "linear, nonlinear and/or display, comma-separated",
  }),
  attrFormat({
    id: "vmap.ad-break.break-type.enum", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdBreak,
    title: "<AdBreak> breakType lists linear, nonlinear or display",
    where: breaks, attr: "breakType", valid: (v) => v.split(",").every((t) => ["linear", "nonlinear", "display"].includes(t.trim())), expected: '"linear", "nonlinear" and/or "display", comma-separated',
  }),
  attrFormat({
    id: "vmap.ad-break.repeat-after.format", group, severity: "warning", versions: VMAP, spec: SPEC.vmapAdBreak,
    title: "<AdBreak> repeatAfter is HH:MM:SS(.mmm)", where: breaks, attr: "repeatAfter", valid: isClock, expected: "HH:MM:SS or HH:MM:SS.mmm",
  }),
  rule({
    id: "vmap.ad-break.repeat-after.start-end", group, severity: "warning", versions: VMAP, spec: SPEC.vmapAdBreak,
    title: "repeatAfter is not used on a start or end break",
    *check(ctx) {
      for (const b of breaks(ctx)) {
        const t = (attrOf(b, "timeOffset") ?? "").trim();
        if (attrOf(b, "repeatAfter") !== undefined && (t === "start" || t === "end")) yield { node: b, message: `<AdBreak timeOffset="${t}"> has repeatAfter: a pre- or post-roll does not repeat; use a time offset for a repeating mid-roll` };
      }
    },
  }),
  rule({
    id: "vmap.ad-break.ad-source.single", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdBreak,
    title: "an <AdBreak> holds at most one <AdSource>",
    *check(ctx) {
      for (const b of breaks(ctx)) {
        const s = kids(b, "AdSource");
        if (s.length > 1) yield { node: s[1]!, message: `<AdBreak> holds ${s.length} <AdSource> elements: VMAP allows one per break; make one break per source or return a pod from one source` };
      }
    },
  }),
  rule({
    id: "vmap.ad-break.break-id.unique", group, severity: "warning", versions: VMAP, spec: SPEC.vmapAdBreak,
    title: "breakId values are unique",
    *check(ctx) {
      const seen = new Set<string>();
      for (const b of breaks(ctx)) {
        const id = (attrOf(b, "breakId") ?? "").trim();
        if (id === "") continue;
        if (seen.has(id)) yield { node: b, message: `<AdBreak breakId="${id}"> repeats another break's id: tracking and reporting cannot tell them apart; give each break its own id` };
        seen.add(id);
      }
    },
  }),
  rule({
    id: "vmap.ad-break.time-offset.duplicate", group, severity: "warning", versions: VMAP, spec: SPEC.vmapAdBreak,
    title: "no two breaks of the same type at the same time",
    *check(ctx) {
      const seen = new Set<string>();
      for (const b of breaks(ctx)) {
        const key = `${(attrOf(b, "timeOffset") ?? "").trim()}|${(attrOf(b, "breakType") ?? "").trim()}`;
        if (key.startsWith("|")) continue;
        if (seen.has(key)) yield { node: b, message: `<AdBreak timeOffset="${attrOf(b, "timeOffset")}"> repeats a break of the same type at the same time: players play one of them; merge them into one break` };
        seen.add(key);
      }
    },
  }),
  rule({
    id: "vmap.ad-source.content", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdSource,
    title: "<AdSource> holds exactly one of VASTAdData, AdTagURI and CustomAdData",
    *check(ctx) {
      for (const s of sources(ctx)) {
        const n = ["VASTAdData", "AdTagURI", "CustomAdData"].reduce((sum, name) => sum + kids(s, name).length, 0);
        if (n !== 1) yield { node: s, message: `<AdSource> holds ${n} ad definitions: give it exactly one of <VASTAdData>, <AdTagURI> or <CustomAdData>` };
      }
    },
  }),
  ...(["allowMultipleAds", "followRedirects"] as const).map((a) =>
    attrFormat({
      id: `vmap.ad-source.${a.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.boolean`, group, severity: "error", versions: VMAP, spec: SPEC.vmapAdSource,
      title: `<AdSource> ${a} is true or false`, where: sources, attr: a, valid: isBoolean, expected: '"true" or "false"',
    }),
  ),
  requiresAttr({
    id: "vmap.ad-tag-uri.template-type.required", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdTagUri,
    title: "<AdTagURI> has a templateType", where: (ctx) => sources(ctx).flatMap((s) => kids(s, "AdTagURI")), attr: "templateType", why: 'the response format, e.g. "vast3"',
  }),
  attrFormat({
    id: "vmap.ad-tag-uri.template-type.enum", group, severity: "warning", versions: VMAP, spec: SPEC.vmapAdTagUri,
    title: "<AdTagURI> templateType is vast1–vast4",
    where: (ctx) => sources(ctx).flatMap((s) => kids(s, "AdTagURI")), attr: "templateType", valid: (v) => /^vast[1-4]$/.test(v.trim()), expected: '"vast2", "vast3" or "vast4"',
  }),
  rule({
    id: "vmap.ad-tag-uri.url", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdTagUri,
    title: "<AdTagURI> holds an absolute http(s) URL",
    *check(ctx) {
      for (const u of sources(ctx).flatMap((s) => kids(s, "AdTagURI"))) {
        if (!isHttpUrl(textOf(u))) yield { node: u, message: `<AdTagURI> "${textOf(u).slice(0, 100)}" is not an absolute http(s) URL: put the ad request URL in it (in CDATA)` };
      }
    },
  }),
  rule({
    id: "vmap.ad-tag-uri.cdata", group, severity: "info", versions: VMAP, spec: SPEC.vmapAdTagUri,
    title: "<AdTagURI> is in CDATA",
    *check(ctx) {
      for (const u of sources(ctx).flatMap((s) => kids(s, "AdTagURI"))) {
        if (!u.cdata && textOf(u) !== "") yield { node: u, message: "<AdTagURI> is not in CDATA: VMAP puts the URI in a CDATA block so its '&' need no escaping; wrap it in <![CDATA[…]]>" };
      }
    },
  }),
  requiresAttr({
    id: "vmap.custom-ad-data.template-type.required", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdSource,
    title: "<CustomAdData> has a templateType", where: (ctx) => sources(ctx).flatMap((s) => kids(s, "CustomAdData")), attr: "templateType", why: "the format of the custom data",
  }),
  rule({
    id: "vmap.vast-ad-data.vast", group, severity: "error", versions: VMAP, spec: SPEC.vmapAdSource,
    title: "<VASTAdData> holds a <VAST> document",
    *check(ctx) {
      for (const d of sources(ctx).flatMap((s) => kids(s, "VASTAdData"))) {
        if (!kid(d, "VAST")) yield { node: d, message: "<VASTAdData> holds no <VAST> element: embed the VAST response as XML (not escaped text)" };
      }
    },
  }),
  requiresAttr({
    id: "vmap.tracking.event.required", group, severity: "error", versions: VMAP, spec: SPEC.vmapTracking,
    title: "a VMAP <Tracking> has an event", where: (ctx) => breaks(ctx).flatMap((b) => kids(kid(b, "TrackingEvents"), "Tracking")), attr: "event", why: "breakStart, breakEnd or error",
  }),
  attrFormat({
    id: "vmap.tracking.event.enum", group, severity: "error", versions: VMAP, spec: SPEC.vmapTracking,
    title: "a VMAP tracking event is breakStart, breakEnd or error",
    where: (ctx) => breaks(ctx).flatMap((b) => kids(kid(b, "TrackingEvents"), "Tracking")), attr: "event", valid: (v) => ["breakStart", "breakEnd", "error"].includes(v.trim()), expected: '"breakStart", "breakEnd" or "error"',
  }),
  rule({
    id: "vmap.tracking.url", group, severity: "error", versions: VMAP, spec: SPEC.vmapTracking,
    title: "a VMAP <Tracking> holds an absolute http(s) URL",
    *check(ctx) {
      for (const t of breaks(ctx).flatMap((b) => kids(kid(b, "TrackingEvents"), "Tracking"))) {
        if (!isHttpUrl(textOf(t))) yield { node: t, message: `<Tracking event="${attrOf(t, "event") ?? ""}"> "${textOf(t).slice(0, 80)}" is not an absolute http(s) URL: put the tracking URL in it` };
      }
    },
  }),
  rule({
    id: "vmap.tracking.error-code", group, severity: "info", versions: VMAP, spec: SPEC.vmapTracking,
    title: "a VMAP error tracker carries [ERRORCODE]",
    *check(ctx) {
      for (const t of breaks(ctx).flatMap((b) => kids(kid(b, "TrackingEvents"), "Tracking"))) {
        if ((attrOf(t, "event") ?? "").trim() === "error" && textOf(t) !== "" && !/\[ERRORCODE\]/.test(textOf(t))) yield { node: t, message: '<Tracking event="error"> has no [ERRORCODE]: add it so the ad server learns what failed' };
      }
    },
  }),
  rule({
    id: "vmap.structure.unknown-child", group, severity: "warning", versions: VMAP, spec: `${SPEC.vmap}; ${SPEC.vmapAdBreak}`,
    title: "<VMAP> and <AdBreak> hold only the elements VMAP defines",
    *check(ctx) {
      for (const parent of [ctx.root, ...breaks(ctx)]) {
        const allowed = new Set((ALLOWED[parent.name.toLowerCase()] ?? []).map((n) => n.toLowerCase()));
        for (const c of parent.children) {
          if (!allowed.has(c.name.toLowerCase())) yield { node: c, message: `${tag(c)} is not defined in <${parent.name}> by VMAP 1.0: players ignore it; put custom data in <Extensions>` };
        }
      }
    },
  }),
];
