import { kids } from "../../xml-tree.ts";
import { attrOf, type LintContext } from "../context.ts";
import { rule } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL, V4_UP } from "../versions.ts";
import type { LintRule, LintVersion } from "../types.ts";
import type { XmlNode } from "../../xml-tree.ts";

// The content model of each container element per version (the IAB XSDs, with what the versions' texts add), so that
// an element a version does not define is named — players ignore it, strict parsers and SSAI servers reject it.
// Extension content is never looked at. Elements another rule already reports in a container (MediaFiles in a
// wrapper, InLine-only elements in a <Wrapper>, ClickThrough in a wrapper) are allowed here so a defect is named once.

const group = "structure" as const;
type Model = Partial<Record<Exclude<LintVersion, "vmap">, readonly string[]>>;

const per = (v2: string[], v3: string[], v40: string[], v41: string[], v42: string[] = v41): Model => ({
  "2.0": v2, "3.0": v3, "4.0": v40, "4.1": v41, "4.2": v42, "4.3": v42,
});
const same = (names: string[]): Model => per(names, names, names, names);

const INLINE_ONLY = ["AdTitle", "Description", "Advertiser", "AdServingId", "Category", "Survey", "Expires"];
const RES = ["StaticResource", "IFrameResource", "HTMLResource"];

interface Container {
  /** Rule id part and element name. */
  name: string;
  /** Which elements of that name: in inline ads, wrapper ads, or both. */
  kind?: "inline" | "wrapper";
  parent?: string;
  model: Model;
}

const CONTAINERS: Container[] = [
  { name: "VAST", model: same(["Ad", "Error"]) },
  { name: "Ad", model: same(["InLine", "Wrapper"]) },
  {
    name: "InLine",
    model: per(
      ["AdSystem", "AdTitle", "Description", "Survey", "Error", "Impression", "Creatives", "Extensions"],
      ["AdSystem", "AdTitle", "Description", "Advertiser", "Pricing", "Survey", "Error", "Impression", "Creatives", "Extensions"],
      ["AdSystem", "Error", "Extensions", "Impression", "Pricing", "ViewableImpression", "AdTitle", "AdVerifications", "Advertiser", "Category", "Creatives", "Description", "Survey"],
      ["AdSystem", "Error", "Extensions", "Impression", "Pricing", "ViewableImpression", "AdServingId", "AdTitle", "AdVerifications", "Advertiser", "Category", "Creatives", "Description", "Expires", "Survey"],
    ),
  },
  {
    name: "Wrapper",
    model: per(
      ["AdSystem", "VASTAdTagURI", "Error", "Impression", "Creatives", "Extensions", ...INLINE_ONLY],
      ["AdSystem", "VASTAdTagURI", "Error", "Impression", "Creatives", "Extensions", ...INLINE_ONLY],
      ["AdSystem", "Error", "Extensions", "Impression", "Pricing", "ViewableImpression", "AdVerifications", "Creatives", "VASTAdTagURI", ...INLINE_ONLY],
      ["AdSystem", "Error", "Extensions", "Impression", "Pricing", "ViewableImpression", "AdVerifications", "BlockedAdCategories", "Creatives", "VASTAdTagURI", ...INLINE_ONLY],
    ),
  },
  { name: "Creatives", model: same(["Creative"]) },
  {
    name: "Creative", kind: "inline",
    model: per(["Linear", "CompanionAds", "NonLinearAds"], ["Linear", "CompanionAds", "NonLinearAds", "CreativeExtensions"],
      ["CompanionAds", "CreativeExtensions", "Linear", "NonLinearAds", "UniversalAdId"], ["CompanionAds", "CreativeExtensions", "Linear", "NonLinearAds", "UniversalAdId"]),
  },
  {
    name: "Creative", kind: "wrapper",
    model: per(["Linear", "CompanionAds", "NonLinearAds"], ["Linear", "CompanionAds", "NonLinearAds", "CreativeExtensions"],
      ["CompanionAds", "Linear", "NonLinearAds"], ["CompanionAds", "Linear", "NonLinearAds"]),
  },
  {
    name: "Linear", kind: "inline",
    model: per(["Duration", "TrackingEvents", "AdParameters", "VideoClicks", "MediaFiles"],
      ["Icons", "CreativeExtensions", "Duration", "TrackingEvents", "AdParameters", "VideoClicks", "MediaFiles"],
      ["Icons", "TrackingEvents", "AdParameters", "Duration", "MediaFiles", "VideoClicks"],
      ["Icons", "TrackingEvents", "AdParameters", "Duration", "MediaFiles", "VideoClicks"]),
  },
  {
    name: "Linear", kind: "wrapper",
    model: per(["TrackingEvents", "VideoClicks", "MediaFiles", "Duration"],
      ["CreativeExtensions", "Icons", "TrackingEvents", "VideoClicks", "MediaFiles", "Duration"],
      ["Icons", "TrackingEvents", "VideoClicks", "MediaFiles", "Duration"], ["Icons", "TrackingEvents", "VideoClicks", "MediaFiles", "Duration"]),
  },
  {
    name: "MediaFiles",
    model: per(["MediaFile"], ["MediaFile"], ["MediaFile", "Mezzanine", "InteractiveCreativeFile"], ["ClosedCaptionFiles", "MediaFile", "Mezzanine", "InteractiveCreativeFile"]),
  },
  { name: "VideoClicks", model: same(["ClickThrough", "ClickTracking", "CustomClick"]) },
  { name: "TrackingEvents", model: same(["Tracking"]) },
  { name: "NonLinearAds", model: same(["TrackingEvents", "NonLinear"]) },
  {
    name: "NonLinear", kind: "inline",
    model: per([...RES, "NonLinearClickThrough", "AdParameters"], [...RES, "CreativeExtensions", "NonLinearClickTracking", "NonLinearClickThrough", "AdParameters"],
      [...RES, "AdParameters", "NonLinearClickThrough", "NonLinearClickTracking"], [...RES, "AdParameters", "NonLinearClickThrough", "NonLinearClickTracking"]),
  },
  { name: "CompanionAds", model: same(["Companion"]) },
  {
    name: "Companion",
    model: per([...RES, "TrackingEvents", "CompanionClickThrough", "AltText", "AdParameters"],
      [...RES, "CreativeExtensions", "TrackingEvents", "CompanionClickThrough", "CompanionClickTracking", "AltText", "AdParameters"],
      [...RES, "AdParameters", "AltText", "CompanionClickThrough", "CompanionClickTracking", "CreativeExtensions", "TrackingEvents"],
      [...RES, "AdParameters", "AltText", "CompanionClickThrough", "CompanionClickTracking", "CreativeExtensions", "TrackingEvents"]),
  },
  { name: "Icons", model: same(["Icon"]) },
  { name: "Icon", model: same([...RES, "IconClicks", "IconViewTracking"]) },
  { name: "IconClicks", model: per(["IconClickThrough", "IconClickTracking"], ["IconClickThrough", "IconClickTracking"], ["IconClickThrough", "IconClickTracking"], ["IconClickThrough", "IconClickTracking"], ["IconClickFallbackImages", "IconClickThrough", "IconClickTracking"]) },
  { name: "AdVerifications", model: same(["Verification"]) },
  {
    name: "Verification",
    model: per([], [], ["FlashResource", "JavaScriptResource", "ViewableImpression"], ["ExecutableResource", "JavaScriptResource", "TrackingEvents", "VerificationParameters"]),
  },
  { name: "ViewableImpression", model: same(["Viewable", "NotViewable", "ViewUndetermined"]) },
  { name: "Extensions", model: same(["Extension"]) },
  { name: "CreativeExtensions", model: same(["CreativeExtension"]) },
  { name: "ClosedCaptionFiles", model: same(["ClosedCaptionFile"]) },
  { name: "IconClickFallbackImages", model: same(["IconClickFallbackImage"]) },
];

/** Every element name the models know, for the spelling rule. */
const KNOWN_NAMES = new Map<string, string>();
for (const c of CONTAINERS) {
  KNOWN_NAMES.set(c.name.toLowerCase(), c.name);
  for (const list of Object.values(c.model)) for (const n of list ?? []) KNOWN_NAMES.set(n.toLowerCase(), n);
}
for (const n of ["AltText", "VerificationParameters", "Tracking", "Impression", "Pricing"]) KNOWN_NAMES.set(n.toLowerCase(), n);

function elementsOf(ctx: LintContext, c: Container): XmlNode[] {
  const nodes = c.name === "VAST" ? [ctx.root] : ctx.all(c.name);
  return nodes.filter((n) => c.kind === undefined || ctx.adKind(n) === c.kind);
}

function unknownChildRule(c: Container): LintRule {
  // InLine and NonLinear are single words in VAST's own vocabulary ("inline", "nonlinear").
  const idName = c.name.replace("InLine", "Inline").replace("NonLinear", "Nonlinear").replace(/([a-z])([A-Z])/g, "$1-$2").toLowerCase();
  return rule({
    id: `vast.structure.${idName}${c.kind ? `.${c.kind}` : ""}.unknown-child`, group, severity: "warning", versions: ALL, spec: SPEC.xmlStructure,
    title: `<${c.name}>${c.kind ? ` (${c.kind})` : ""} holds only elements its version defines`,
    *check(ctx) {
      if (!ctx.version || ctx.version === "vmap") return;
      const allowed = new Set((c.model[ctx.version] ?? []).map((n) => n.toLowerCase()));
      for (const n of elementsOf(ctx, c)) {
        for (const child of n.children) {
          if (allowed.has(child.name.toLowerCase())) continue;
          yield { node: child, message: `<${child.name}> is not defined in <${n.name}> by VAST ${ctx.version}: players ignore it and strict parsers reject the document; ${KNOWN_NAMES.has(child.name.toLowerCase()) ? "move it where this version defines it, or declare the version that has it" : "put custom data in <Extensions>"}` };
        }
      }
    },
  });
}

const SINGLE = ["AdSystem", "AdTitle", "Description", "Advertiser", "Pricing", "AdServingId", "Expires", "Creatives", "Duration", "MediaFiles", "VideoClicks", "ClickThrough", "TrackingEvents", "Icons", "AdParameters", "Linear", "NonLinearAds", "CompanionAds", "Extensions", "ViewableImpression", "AdVerifications", "IconClicks", "IconClickThrough", "NonLinearClickThrough", "CompanionClickThrough", "AltText"];

export const structureRules: LintRule[] = [
  ...CONTAINERS.map(unknownChildRule),
  rule({
    id: "vast.structure.element-case", group, severity: "warning", versions: ALL, spec: SPEC.xmlStructure,
    title: "element names are spelled with the spec's capitals",
    *check(ctx) {
      for (const n of [ctx.root, ...ctx.elements]) {
        const right = KNOWN_NAMES.get(n.name.toLowerCase());
        if (right && right !== n.name && !(n === ctx.root && right === "VAST" && n.name === "VAST")) {
          yield { node: n, message: `<${n.name}> is spelled <${right}> in VAST: XML names are case-sensitive and strict players (and SSAI servers) do not find it; rename it` };
        }
      }
    },
  }),
  rule({
    id: "vast.structure.duplicate-element", group, severity: "error", versions: ALL, spec: SPEC.xmlStructure,
    title: "single elements (AdSystem, Duration, MediaFiles …) appear once",
    *check(ctx) {
      const single = new Set(SINGLE.map((s) => s.toLowerCase()));
      for (const n of [ctx.root, ...ctx.elements]) {
        const seen = new Set<string>();
        for (const c of n.children) {
          const lower = c.name.toLowerCase();
          if (!single.has(lower)) continue;
          if (seen.has(lower)) yield { node: c, message: `<${n.name}> holds more than one <${c.name}>: the schema allows one and players read only the first; merge them or remove the extra one` };
          seen.add(lower);
        }
      }
    },
  }),
  rule({
    id: "vast.structure.creative.one-kind", group, severity: "warning", versions: ALL, spec: SPEC.creative,
    title: "a <Creative> holds one of Linear, NonLinearAds and CompanionAds",
    *check(ctx) {
      for (const c of ctx.all("Creative")) {
        const kinds = ["Linear", "NonLinearAds", "CompanionAds"].filter((k) => kids(c, k).length > 0);
        if (kinds.length > 1) yield { node: c, message: `<Creative> holds ${kinds.join(" and ")}: each <Creative> carries one of them; put each in its own <Creative>` };
      }
    },
  }),
  rule({
    id: "vast.root.ad-and-error", group, severity: "warning", versions: V4_UP, spec: `${SPEC.rootError}; vast4.xsd, vast_4.1.xsd, vast_4.2.xsd (<Ad> or <Error>, not both)`,
    title: "VAST 4.x: the root holds <Ad> elements or an <Error>, not both",
    *check(ctx) {
      const err = kids(ctx.root, "Error")[0];
      if (err && kids(ctx.root, "Ad").length > 0) yield { node: err, message: "<VAST> holds both <Ad> and a root <Error>: a root <Error> is the no-ad answer; put error URLs in each <InLine>/<Wrapper> instead" };
    },
  }),
  rule({
    id: "vast.structure.namespace", group, severity: "info", versions: V4_UP, spec: `${SPEC.root}; vast4.xsd, vast_4.1.xsd, vast_4.2.xsd (targetNamespace http://www.iab.com/VAST)`,
    title: "VAST 4.x: the document declares the VAST namespace",
    *check(ctx) {
      const ns = attrOf(ctx.root, "xmlns");
      if (ns !== undefined && ns.trim() !== "http://www.iab.com/VAST") yield { node: ctx.root, message: `<VAST xmlns="${ns}">: the VAST 4 namespace is http://www.iab.com/VAST; schema-validating servers find no VAST elements in another one` };
    },
  }),
];
