import { create } from "@bufbuild/protobuf";
import { VastCompanionSchema, VastInteractiveFileSchema, VastVerificationSchema, type VastCompanion, type VastInteractiveFile, type VastVerification } from "@cva/contracts";
import { urlText, type AdInfo, type VastDocument } from "./vast-document.ts";
import { parseClock } from "./vast-time.ts";
import { attr, descendants, kid, kids, textOf, type XmlNode } from "./xml-tree.ts";

// What an <Ad> declares beyond its creatives, for the report's `ads[]` and the per-version tests: UniversalAdId,
// Error URLs, tracking events, Open Measurement verifications, SIMID/VPAID interactive files, mezzanines, companions.

export interface AdDetails {
  id: string;
  sequence: number;
  adServingId: string;
  universalAdIds: string[];
  errorUrls: number;
  trackingEvents: string[];
  verifications: VastVerification[];
  interactiveFiles: VastInteractiveFile[];
  mezzanineUrls: string[];
  companions: VastCompanion[];
  vpaid: boolean;
  /** SIMID InteractiveCreativeFiles with what Player:init's creativeData carries (their Linear's values). */
  simidFiles: SimidFile[];
}

export interface SimidFile {
  url: string;
  adParameters: string;
  clickThrough: string;
  durationSeconds: number;
}

const int = (v: string | undefined) => {
  const n = Number.parseInt((v ?? "").trim(), 10);
  return Number.isFinite(n) && n >= 0 && n <= 2_147_483_647 ? n : 0;
};
const isVpaid = (n: XmlNode) => (attr(n, "apiFramework") ?? "").trim().toUpperCase().startsWith("VPAID");

function verificationsOf(body: XmlNode): VastVerification[] {
  // VAST 4.1+: <AdVerifications> in the ad; before it, the same block inside <Extensions><Extension type="AdVerifications">.
  const blocks = [kid(body, "AdVerifications"), ...kids(kid(body, "Extensions"), "Extension").map((e) => kid(e, "AdVerifications"))];
  return blocks.flatMap((b) =>
    kids(b, "Verification").map((v) => {
      const js = kid(v, "JavaScriptResource");
      const url = textOf(js);
      return create(VastVerificationSchema, {
        vendor: (attr(v, "vendor") ?? "").trim(), javascriptResourceUrl: url, apiFramework: (attr(js, "apiFramework") ?? "").trim(),
        hasParameters: textOf(kid(v, "VerificationParameters")) !== "",
        https: /^https:\/\//i.test(url),
      });
    }),
  );
}

function companionOf(c: XmlNode): VastCompanion {
  const resources: Array<[string, string]> = [["static", "StaticResource"], ["iframe", "IFrameResource"], ["html", "HTMLResource"]];
  let resourceType = "";
  let resource = "";
  let creativeType = "";
  for (const [type, name] of resources) {
    const n = kid(c, name);
    if (!n) continue;
    resourceType = type;
    resource = textOf(n);
    creativeType = (attr(n, "creativeType") ?? "").trim();
    break;
  }
  if (resourceType === "" && (kid(c, "URL") || kid(c, "Code"))) {
    // VAST 1.0: <URL> or <Code>, its kind in resourceType.
    const declared = (attr(c, "resourceType") ?? "").trim().toLowerCase();
    resourceType = declared === "html" ? "html" : declared === "iframe" ? "iframe" : "static";
    resource = kid(c, "URL") ? urlText(c) : textOf(kid(c, "Code"));
    creativeType = (attr(c, "creativeType") ?? "").trim();
  }
  return create(VastCompanionSchema, {
    id: (attr(c, "id") ?? "").trim(),
    width: int(attr(c, "width")),
    height: int(attr(c, "height")),
    resourceType,
    resource: resourceType === "html" ? resource.slice(0, 200) : resource,
    creativeType,
    clickThroughUrl: urlText(kid(c, "CompanionClickThrough")),
  });
}

export function readAdDetails(adNode: XmlNode, ad: AdInfo, doc: VastDocument): AdDetails {
  const body = ad.body;
  const creatives = kids(kid(body, "Creatives"), "Creative");
  const linears = [...creatives.map((c) => kid(c, "Linear")), kid(body, "Video")].filter((n): n is XmlNode => n !== undefined);
  const events = new Set<string>();
  for (const l of [...linears, ...(kid(body, "Video") ? [body!] : [])]) {
    for (const t of kids(kid(l, "TrackingEvents"), "Tracking")) events.add((attr(t, "event") ?? "").trim());
  }
  const mediaParents = linears.map((l) => kid(l, "MediaFiles"));
  const interactive = mediaParents.flatMap((m) => kids(m, "InteractiveCreativeFile"));
  const simidFiles = linears.flatMap((l) =>
    kids(kid(l, "MediaFiles"), "InteractiveCreativeFile")
      .filter((f) => (attr(f, "apiFramework") ?? "").trim().toUpperCase() === "SIMID" && textOf(f) !== "")
      .map((f) => ({
        url: textOf(f),
        adParameters: textOf(kid(l, "AdParameters")),
        clickThrough: textOf(kid(kid(l, "VideoClicks"), "ClickThrough")),
        durationSeconds: parseClock(textOf(kid(l, "Duration"))) ?? 0,
      })),
  );
  return {
    id: (attr(adNode, "id") ?? "").trim(),
    sequence: int(attr(adNode, "sequence")),
    adServingId: textOf(kid(body, "AdServingId")),
    // One entry per Linear/NonLinear creative, in the report's creative order ("" for one without).
    universalAdIds: creatives
      .filter((c) => kid(c, "Linear") || kid(c, "NonLinearAds"))
      .map((c) => kids(c, "UniversalAdId").map((u) => `${(attr(u, "idRegistry") ?? "").trim()}:${textOf(u)}`).join(", ")),
    errorUrls: kids(body, "Error").filter((e) => urlText(e) !== "").length + kids(doc.root, "Error").filter((e) => textOf(e) !== "").length,
    trackingEvents: [...events].filter((e) => e !== ""),
    verifications: body ? verificationsOf(body) : [],
    interactiveFiles: interactive.map((f) =>
      create(VastInteractiveFileSchema, { url: textOf(f), type: (attr(f, "type") ?? "").trim(), apiFramework: (attr(f, "apiFramework") ?? "").trim() }),
    ),
    mezzanineUrls: mediaParents.flatMap((m) => kids(m, "Mezzanine").map(textOf)).filter((u) => u !== ""),
    companions: [...creatives.flatMap((c) => kids(kid(c, "CompanionAds"), "Companion")), ...kids(kid(body, "CompanionAds"), "Companion")].map(companionOf),
    simidFiles,
    vpaid: [...mediaParents.flatMap((m) => kids(m, "MediaFile")), ...interactive].some(isVpaid) || [...(body ? descendants(body) : [])].some((n) => n.name === "MediaFile" && isVpaid(n)),
  };
}



