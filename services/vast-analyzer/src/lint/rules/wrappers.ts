import { kid, kids, textOf } from "../../xml-tree.ts";
import { attrOf } from "../context.ts";
import { attrFormat, inAds, rule } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL, V3_UP, V4_UP } from "../versions.ts";
import { isBoolean, isHttpUrl } from "../values.ts";
import type { LintRule } from "../types.ts";

// Wrappers: where they point, their attributes, and what a wrapper may not carry (a wrapper has no media of its own:
// players take media, duration and click-through from the inline ad at the end of the chain).

const group = "wrappers" as const;

export const wrapperRules: LintRule[] = [
  rule({
    id: "vast.wrapper.vast-ad-tag-uri.url", group, severity: "error", versions: ALL, spec: SPEC.wrapper,
    title: "<VASTAdTagURI> holds an http(s) URL",
    *check(ctx) {
      for (const w of ctx.select("Ad", "Wrapper")) {
        for (const u of kids(w, "VASTAdTagURI")) {
          const v = textOf(u);
          // A relative reference is vast.url.relative's finding.
          if (v !== "" && !/^\s*[A-Za-z][A-Za-z0-9+.-]*:/.test(v) && !v.startsWith("//")) continue;
          if (!isHttpUrl(v)) yield { node: u, message: v === "" ? "<VASTAdTagURI> is empty: put the URL of the next VAST document in it" : `<VASTAdTagURI> "${v.slice(0, 100)}" is not an absolute http(s) URL: players cannot follow it (error 301/303)` };
        }
      }
    },
  }),
  rule({
    id: "vast.wrapper.vast-ad-tag-uri.single", group, severity: "error", versions: ALL, spec: SPEC.wrapper,
    title: "a <Wrapper> has one <VASTAdTagURI>",
    *check(ctx) {
      for (const w of ctx.select("Ad", "Wrapper")) {
        const uris = kids(w, "VASTAdTagURI");
        if (uris.length > 1) yield { node: uris[1]!, message: `<Wrapper> has ${uris.length} <VASTAdTagURI> elements: a wrapper points at one document; keep one (use separate <Ad> elements for alternatives)` };
      }
    },
  }),
  ...(["followAdditionalWrappers", "allowMultipleAds", "fallbackOnNoAd"] as const).map((a) =>
    attrFormat({
      id: `vast.wrapper.${a.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.boolean`, group, severity: "error", versions: V3_UP, spec: SPEC.wrapperAttrs,
      title: `<Wrapper> ${a} is true or false`,
      where: (ctx) => ctx.select("Ad", "Wrapper"), attr: a, valid: isBoolean, expected: '"true" or "false"',
    }),
  ),
  rule({
    id: "vast.wrapper.attributes.version", group, severity: "info", versions: ["2.0"], spec: "VAST 2.0 <Wrapper>; vast_2.0.1.xsd (no attributes)",
    title: "VAST 2.0: no followAdditionalWrappers, allowMultipleAds or fallbackOnNoAd",
    *check(ctx) {
      for (const w of ctx.select("Ad", "Wrapper")) {
        const used = ["followAdditionalWrappers", "allowMultipleAds", "fallbackOnNoAd"].filter((a) => attrOf(w, a) !== undefined);
        if (used.length > 0) yield { node: w, message: `<Wrapper> ${used.join(", ")}: not defined in VAST 2.0, so VAST 2 players ignore it; declare version 3.0 or later to rely on it` };
      }
    },
  }),
  rule({
    id: "vast.wrapper.allow-multiple-ads.pod", group, severity: "warning", versions: V3_UP, spec: SPEC.wrapperAttrs,
    title: "a wrapper inside a pod does not allow multiple ads",
    *check(ctx) {
      for (const ad of kids(ctx.root, "Ad")) {
        const w = kid(ad, "Wrapper");
        if (w && attrOf(ad, "sequence") !== undefined && (attrOf(w, "allowMultipleAds") ?? "").trim() === "true") {
          yield { node: w, message: '<Wrapper allowMultipleAds="true"> inside a pod (its <Ad> has a sequence): a pod slot takes one ad, and players ignore a pod returned for it; set allowMultipleAds="false"' };
        }
      }
    },
  }),
  rule({
    id: "vast.wrapper.media-files.ignored", group, severity: "warning", versions: ALL, spec: SPEC.wrapper,
    title: "a wrapper's <Linear> has no <MediaFiles> or <Duration>",
    *check(ctx) {
      for (const l of inAds(ctx, "wrapper", "Linear")) {
        for (const name of ["MediaFiles", "Duration"]) {
          const n = kid(l, name);
          if (n) yield { node: n, message: `<${n.name}> in a wrapper's <Linear>: players take ${name === "Duration" ? "the duration" : "media"} from the inline ad and ignore it here; remove it` };
        }
      }
    },
  }),
  rule({
    id: "vast.wrapper.click-through.ignored", group, severity: "warning", versions: ["2.0", "3.0", "4.0", "4.1"], spec: `${SPEC.videoClicks}; vast_2.0.1.xsd, vast3_draft.xsd, vast4.xsd, vast_4.1.xsd (wrapper VideoClicks: no ClickThrough)`,
    title: "a wrapper has no <ClickThrough> (before 4.2)",
    *check(ctx) {
      for (const vc of inAds(ctx, "wrapper", "VideoClicks")) {
        const ct = kid(vc, "ClickThrough");
        if (ct) yield { node: ct, message: "<ClickThrough> in a wrapper: the click-through comes from the inline ad, and this version's schema does not allow it here; track clicks with <ClickTracking> instead" };
      }
    },
  }),
  rule({
    id: "vast.wrapper.nonlinear.resource.ignored", group, severity: "warning", versions: ALL, spec: SPEC.wrapper,
    title: "a wrapper's <NonLinear> carries no resource",
    *check(ctx) {
      for (const nl of inAds(ctx, "wrapper", "NonLinear")) {
        const r = kid(nl, "StaticResource") ?? kid(nl, "IFrameResource") ?? kid(nl, "HTMLResource");
        if (r) yield { node: r, message: `<${r.name}> in a wrapper's <NonLinear>: the overlay comes from the inline ad and players ignore this one; keep only tracking in the wrapper` };
      }
    },
  }),
  rule({
    id: "vast.wrapper.inline-only-element", group, severity: "warning", versions: ALL, spec: SPEC.wrapper,
    title: "a <Wrapper> carries no InLine-only elements (AdTitle, Description, AdServingId …)",
    *check(ctx) {
      for (const w of ctx.select("Ad", "Wrapper")) {
        for (const c of w.children) {
          if (["adtitle", "description", "advertiser", "adservingid", "category", "survey", "expires"].includes(c.name.toLowerCase())) {
            yield { node: c, message: `<${c.name}> in a <Wrapper>: it belongs to the inline ad and players ignore it here; remove it from the wrapper` };
          }
        }
      }
    },
  }),
  rule({
    id: "vast.wrapper.follow-additional-wrappers.false", group, severity: "info", versions: V4_UP, spec: SPEC.wrapperAttrs,
    title: "followAdditionalWrappers=\"false\" is deliberate",
    *check(ctx) {
      for (const w of ctx.select("Ad", "Wrapper")) {
        if ((attrOf(w, "followAdditionalWrappers") ?? "").trim() === "false") {
          yield { node: w, message: '<Wrapper followAdditionalWrappers="false">: the player refuses any further wrapper, so the target must answer with an inline ad; make sure it never redirects again' };
        }
      }
    },
  }),
];
