import { kid, kids, textOf } from "../../xml-tree.ts";
import { attrOf } from "../context.ts";
import { attrFormat, inAds, requiresAttr, requiresChild, rule } from "../define.ts";
import { SPEC } from "../spec.ts";
import { V3_UP, V4_UP, V41_UP } from "../versions.ts";
import { isHttpUrl } from "../values.ts";
import type { LintRule } from "../types.ts";

// Requirements that a version introduced: UniversalAdId (4.0), AdServingId and the Verification vendor (4.1), the
// attributes of Pricing (3.0) and Category (4.0), and the Open Measurement resources of 4.1.

const group = "conditional_requirements" as const;

export const conditionalRules: LintRule[] = [
  requiresChild({
    id: "vast.creative.universal-ad-id.required", group, severity: "error", versions: V4_UP, spec: SPEC.universalAdId,
    title: "VAST 4.x: every inline <Creative> has a <UniversalAdId>",
    where: (ctx) => inAds(ctx, "inline", "Creative"), child: "UniversalAdId",
    message: () => `<Creative> has no <UniversalAdId>: VAST 4 requires it; add <UniversalAdId idRegistry="Ad-ID">…</UniversalAdId> (idRegistry="unknown" and value "unknown" when the creative has no registered id)`,
  }),
  requiresAttr({
    id: "vast.universal-ad-id.id-registry.required", group, severity: "error", versions: V4_UP, spec: SPEC.universalAdId,
    title: "<UniversalAdId> has an idRegistry",
    where: (ctx) => ctx.all("UniversalAdId"), attr: "idRegistry", why: 'the registry the id belongs to, e.g. "Ad-ID" or "clearcast"; "unknown" when there is none',
  }),
  requiresAttr({
    id: "vast.universal-ad-id.id-value.required", group, severity: "error", versions: ["4.0"], spec: `VAST 4.0 <UniversalAdId> idValue; vast4.xsd (use="required")`,
    title: "VAST 4.0: <UniversalAdId> has an idValue",
    where: (ctx) => ctx.all("UniversalAdId"), attr: "idValue", why: "VAST 4.0 carries the id in this attribute (4.1 moved it into the element's text)",
  }),
  rule({
    id: "vast.universal-ad-id.value.required", group, severity: "error", versions: V41_UP, spec: SPEC.universalAdId,
    title: "VAST 4.1+: <UniversalAdId> holds the id as text",
    *check(ctx) {
      for (const n of ctx.all("UniversalAdId")) {
        if (textOf(n) === "") yield { node: n, message: '<UniversalAdId> is empty: since VAST 4.1 the id is the element\'s text; write it there ("unknown" when there is none)' };
      }
    },
  }),
  rule({
    id: "vast.universal-ad-id.ad-id.format", group, severity: "warning", versions: V4_UP, spec: `${SPEC.universalAdId}; Ad-ID code format (ad-id.org: 4-character prefix + 7 characters, optional H or D)`,
    title: "an Ad-ID UniversalAdId has the Ad-ID code format",
    *check(ctx) {
      for (const n of ctx.all("UniversalAdId")) {
        const reg = (attrOf(n, "idRegistry") ?? "").trim().toLowerCase();
        if (reg !== "ad-id" && reg !== "ad-id.org") continue;
        const value = (textOf(n) || attrOf(n, "idValue") || "").trim();
        if (value === "" || value.toLowerCase() === "unknown") continue;
        if (!/^[A-Z0-9]{4}[A-Z0-9]{7}[HD]?$/.test(value)) {
          yield { node: n, message: `<UniversalAdId idRegistry="Ad-ID"> "${value.slice(0, 40)}" is not an Ad-ID code (11 upper-case letters and digits, optionally ending in H or D): check the code` };
        }
      }
    },
  }),
  requiresChild({
    id: "vast.inline.ad-serving-id.required", group, severity: "error", versions: V41_UP, spec: SPEC.adServingId,
    title: "VAST 4.1+: <InLine> has an <AdServingId>",
    where: (ctx) => ctx.select("Ad", "InLine"), child: "AdServingId",
    message: () => "<InLine> has no <AdServingId>: VAST 4.1 requires it; add the ad server's id of this serving (it ties impressions to the auction)",
  }),
  rule({
    id: "vast.inline.ad-serving-id.empty", group, severity: "warning", versions: V41_UP, spec: SPEC.adServingId,
    title: "<AdServingId> is not empty",
    *check(ctx) {
      for (const n of ctx.all("AdServingId")) if (textOf(n) === "") yield { node: n, message: "<AdServingId> is empty: fill it with this serving's id" };
    },
  }),
  requiresAttr({
    id: "vast.verification.vendor.required", group, severity: "error", versions: V41_UP, spec: SPEC.verification,
    title: "VAST 4.1+: <Verification> has a vendor",
    where: (ctx) => ctx.all("Verification"), attr: "vendor", why: 'VAST 4.1 requires it: the vendor key, e.g. "company.com-omid"; the player passes it to the OM SDK',
  }),
  rule({
    id: "vast.verification.resource.required", group, severity: "error", versions: V41_UP, spec: SPEC.verification,
    title: "<Verification> has a <JavaScriptResource> or <ExecutableResource>",
    *check(ctx) {
      for (const n of ctx.all("Verification")) {
        if (!kid(n, "JavaScriptResource") && !kid(n, "ExecutableResource")) {
          yield { node: n, message: "<Verification> has no <JavaScriptResource> or <ExecutableResource>: add the verification script; without it nothing measures the ad" };
        }
      }
    },
  }),
  requiresAttr({
    id: "vast.verification.js-resource.api-framework.required", group, severity: "error", versions: V41_UP, spec: SPEC.verification,
    title: "<JavaScriptResource> has an apiFramework",
    where: (ctx) => ctx.all("JavaScriptResource").filter((n) => ctx.ancestor(n, "Verification")),
    attr: "apiFramework", why: 'e.g. "omid"; the player loads only scripts of a framework it supports',
  }),
  requiresAttr({
    id: "vast.verification.executable-resource.api-framework.required", group, severity: "error", versions: V41_UP, spec: SPEC.verification,
    title: "<ExecutableResource> has an apiFramework",
    where: (ctx) => ctx.all("ExecutableResource"), attr: "apiFramework", why: "the framework that runs it",
  }),
  requiresAttr({
    id: "vast.verification.executable-resource.type.required", group, severity: "error", versions: V41_UP, spec: SPEC.verification,
    title: "<ExecutableResource> has a type",
    where: (ctx) => ctx.all("ExecutableResource"), attr: "type", why: "the MIME type of the code",
  }),
  rule({
    id: "vast.verification.js-resource.url", group, severity: "error", versions: V41_UP, spec: SPEC.verification,
    title: "<JavaScriptResource> holds an http(s) URL",
    *check(ctx) {
      for (const n of ctx.all("JavaScriptResource").filter((x) => ctx.ancestor(x, "Verification"))) {
        if (!isHttpUrl(textOf(n))) yield { node: n, message: `<JavaScriptResource> "${textOf(n).slice(0, 80)}" is not an http(s) URL: put the verification script's URL in it` };
      }
    },
  }),
  requiresAttr({
    id: "vast.pricing.model.required", group, severity: "error", versions: V3_UP, spec: SPEC.pricing,
    title: "<Pricing> has a model",
    where: (ctx) => ctx.all("Pricing"), attr: "model", why: "CPM, CPC, CPE or CPV",
  }),
  requiresAttr({
    id: "vast.pricing.currency.required", group, severity: "error", versions: V3_UP, spec: SPEC.pricing,
    title: "<Pricing> has a currency",
    where: (ctx) => ctx.all("Pricing"), attr: "currency", why: "a 3-letter ISO 4217 code such as USD",
  }),
  requiresAttr({
    id: "vast.category.authority.required", group, severity: "error", versions: V4_UP, spec: SPEC.category,
    title: "<Category> has an authority",
    where: (ctx) => ctx.all("Category"), attr: "authority", why: "the URL of the taxonomy, e.g. https://iabtechlab.com",
  }),
  attrFormat({
    id: "vast.category.authority.uri", group, severity: "warning", versions: V4_UP, spec: SPEC.category,
    title: "<Category> and <BlockedAdCategories> authority is a URL",
    where: (ctx) => [...ctx.all("Category"), ...ctx.all("BlockedAdCategories")], attr: "authority", valid: isHttpUrl, expected: "the taxonomy's URL (e.g. https://iabtechlab.com)",
  }),
  rule({
    id: "vast.universal-ad-id.id-value.removed", group, severity: "warning", versions: V41_UP, spec: SPEC.universalAdId,
    title: "VAST 4.1+: <UniversalAdId> has no idValue attribute",
    *check(ctx) {
      for (const n of ctx.all("UniversalAdId")) {
        if (attrOf(n, "idValue") !== undefined) yield { node: n, message: "<UniversalAdId> has idValue: VAST 4.1 removed the attribute; move the id into the element's text" };
      }
    },
  }),
  rule({
    id: "vast.verification.vendor.format", group, severity: "warning", versions: V41_UP, spec: `${SPEC.verification} (vendor: "company.com-useCase")`,
    title: "a Verification vendor is a domain-qualified key",
    *check(ctx) {
      for (const n of ctx.all("Verification")) {
        const v = attrOf(n, "vendor");
        if (v !== undefined && !/^[a-z0-9-]+(\.[a-z0-9-]+)+-[A-Za-z0-9_.-]+$/i.test(v.trim())) {
          yield { node: n, message: `<Verification vendor="${v}"> is not of the form "company.com-useCase" (e.g. "doubleverify.com-omid"): players and the OM SDK key vendors by it` };
        }
      }
    },
  }),
  rule({
    id: "vast.verification.vendor.duplicate", group, severity: "warning", versions: V41_UP, spec: SPEC.verification,
    title: "each vendor appears once in <AdVerifications>",
    *check(ctx) {
      for (const list of ctx.all("AdVerifications")) {
        const seen = new Set<string>();
        for (const v of kids(list, "Verification")) {
          const vendor = (attrOf(v, "vendor") ?? "").trim();
          if (vendor === "") continue;
          if (seen.has(vendor)) yield { node: v, message: `<Verification vendor="${vendor}"> appears twice: the vendor's script runs twice and double-counts; keep one` };
          seen.add(vendor);
        }
      }
    },
  }),
  rule({
    id: "vast.verification.parameters.recommended", group, severity: "info", versions: V41_UP, spec: SPEC.verification,
    title: "a Verification passes <VerificationParameters>",
    *check(ctx) {
      for (const n of ctx.all("Verification")) {
        if (kid(n, "JavaScriptResource") && textOf(kid(n, "VerificationParameters")) === "") yield { node: n, message: "<Verification> has no <VerificationParameters>: most verification scripts need their campaign parameters from it; add them (in CDATA)" };
      }
    },
  }),
  rule({
    id: "vast.verification.js-resource.https", group, severity: "warning", versions: V41_UP, spec: SPEC.verification,
    title: "a verification script is loaded over https",
    *check(ctx) {
      for (const n of ctx.all("JavaScriptResource").filter((x) => ctx.ancestor(x, "Verification"))) {
        if (/^\s*http:/i.test(textOf(n))) yield { node: n, message: "<JavaScriptResource> is http: the OM SDK and https pages refuse it; serve the script over https" };
      }
    },
  }),
];
