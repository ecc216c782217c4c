import { attr, descendants, kid, kids, path, textOf, type XmlNode } from "./xml-tree.ts";
import { parseClock } from "./vast-time.ts";

/** What the root element says the document is. */
export type DocumentKind = "vast" | "vast1" | "vmap" | "other";

export interface VastDocument {
  kind: DocumentKind;
  rootName: string;
  /** The root's version attribute, as written (trimmed). */
  version: string;
  /** The Ad elements, ordered as a player would play them (pod by sequence first, then stand-alone ads). */
  ads: XmlNode[];
  root: XmlNode;
}

export function readDocument(root: XmlNode): VastDocument {
  const name = root.name;
  const version = (attr(root, "version") ?? "").trim();
  const lower = name.toLowerCase();
  const kind: DocumentKind =
    lower === "vast" ? "vast" : lower === "videoadservingtemplate" ? "vast1" : lower === "vmap" ? "vmap" : "other";
  const ads = kind === "vast" || kind === "vast1" ? orderAds(kids(root, "Ad")) : [];
  return { kind, rootName: name, version: kind === "vast1" && version === "" ? "1.0" : version, ads, root };
}

/**
 * VAST 3+: ads with a sequence attribute form a pod and play in sequence order; stand-alone ads (no sequence) are
 * fall-backs. The ad analysed is the first of this order — the one a player shows first.
 */
function orderAds(ads: XmlNode[]): XmlNode[] {
  const seq = (a: XmlNode): number => {
    const s = Number.parseInt(attr(a, "sequence") ?? "", 10);
    return Number.isFinite(s) ? s : Number.POSITIVE_INFINITY;
  };
  return ads
    .map((ad, i) => ({ ad, i, s: seq(ad) }))
    .sort((a, b) => a.s - b.s || a.i - b.i)
    .map((x) => x.ad);
}

export type AdType = "inline" | "wrapper" | "unknown";

export interface MediaFileInfo {
  url: string;
  attrs: {
    bitrate: number;
    delivery: string;
    height: number;
    maintainaspectratio: string;
    scalable: string;
    type: string;
    width: number;
    codec: string;
    apiFramework: string;
    id: string;
  };
}

export interface LinearCreativeInfo {
  id: string;
  adId: string;
  /** As declared, trimmed. */
  duration: string;
  durationSeconds: number | undefined;
  /** The skipoffset attribute as declared, if any. */
  skipOffset: string | undefined;
  clickThrough: string;
  mediaFiles: MediaFileInfo[];
}

/** One NonLinear overlay as declared. */
export interface NonLinearInfo {
  id: string;
  width: number;
  height: number;
  /** The first resource element it has: StaticResource, IFrameResource or HTMLResource. */
  resourceType: "static" | "iframe" | "html" | "";
  /** The resource as written: a URL for static/iframe, markup for html. */
  resource: string;
  creativeType: string;
  clickThrough: string;
  minSuggestedDuration: string;
  apiFramework: string;
}

export interface NonLinearCreativeInfo {
  id: string;
  adId: string;
  nonLinears: NonLinearInfo[];
}

export interface AdInfo {
  type: AdType;
  /** The InLine or Wrapper element. */
  body: XmlNode | undefined;
  adSystem: string;
  adTitle: string;
  /** Impression URLs as declared (trimmed), empty ones dropped. */
  impressions: string[];
  /** Wrapper only: VASTAdTagURI (VAST 2+) or VASTAdTagURL/URL (VAST 1 style), as declared. */
  wrapperUri: string | undefined;
  /** Number of Tracking elements (linear, non-linear, companion) — merged along the chain. */
  trackingEvents: Array<{ event: string; url: string }>;
  /** The Linear and NonLinearAds creatives, in document order (the report's creative indexes). */
  creatives: CreativeInfo[];
  /** <Creative> elements that are neither: "companion" (CompanionAds only) or "empty" — to say why nothing plays. */
  otherCreatives: Array<"companion" | "empty">;
}

export type CreativeInfo = ({ kind: "linear" } & LinearCreativeInfo) | ({ kind: "nonlinear" } & NonLinearCreativeInfo);

function intAttr(node: XmlNode, name: string): number {
  const v = Number.parseInt((attr(node, name) ?? "").trim(), 10);
  return Number.isFinite(v) && v >= 0 && v <= 2_147_483_647 ? v : 0;
}

function strAttr(node: XmlNode, name: string): string {
  return (attr(node, name) ?? "").trim();
}

/** A URL element's value: VAST 1 nests it in <URL>, VAST 2+ writes it as the element's text. */
export function urlText(node: XmlNode | undefined): string {
  const inner = kid(node, "URL");
  return inner ? textOf(inner) : textOf(node);
}

function readMediaFile(mf: XmlNode): MediaFileInfo {
  return {
    url: urlText(mf),
    attrs: {
      bitrate: intAttr(mf, "bitrate"),
      delivery: strAttr(mf, "delivery"),
      height: intAttr(mf, "height"),
      maintainaspectratio: strAttr(mf, "maintainAspectRatio"),
      scalable: strAttr(mf, "scalable"),
      type: strAttr(mf, "type"),
      width: intAttr(mf, "width"),
      codec: strAttr(mf, "codec"),
      apiFramework: strAttr(mf, "apiFramework"),
      id: strAttr(mf, "id"),
    },
  };
}

function readLinear(creative: XmlNode, linear: XmlNode): LinearCreativeInfo {
  const duration = textOf(kid(linear, "Duration"));
  return {
    id: strAttr(creative, "id"),
    // VAST 3+ writes adId; VAST 2 (and many ad servers) AdID — attr() compares case-insensitively.
    adId: strAttr(creative, "adId"),
    duration,
    durationSeconds: parseClock(duration),
    skipOffset: attr(linear, "skipoffset"),
    clickThrough: textOf(path(linear, "VideoClicks", "ClickThrough")),
    mediaFiles: kids(kid(linear, "MediaFiles"), "MediaFile").map(readMediaFile),
  };
}

/** VAST 1.0 has no <Creatives>: its linear ad is <Video> (Duration, AdID, VideoClicks, MediaFiles, URLs in <URL>). */
function readVast1Video(video: XmlNode): LinearCreativeInfo {
  const duration = textOf(kid(video, "Duration"));
  return {
    id: "",
    adId: textOf(kid(video, "AdID")),
    duration,
    durationSeconds: parseClock(duration),
    skipOffset: undefined,
    clickThrough: urlText(path(video, "VideoClicks", "ClickThrough")),
    mediaFiles: kids(kid(video, "MediaFiles"), "MediaFile").map(readMediaFile),
  };
}

const RESOURCES: Array<[NonLinearInfo["resourceType"], string]> = [
  ["static", "StaticResource"],
  ["iframe", "IFrameResource"],
  ["html", "HTMLResource"],
];

function readNonLinear(nl: XmlNode): NonLinearInfo {
  let resourceType: NonLinearInfo["resourceType"] = "";
  let resource = "";
  let creativeType = "";
  for (const [type, element] of RESOURCES) {
    const node = kid(nl, element);
    if (!node) continue;
    resourceType = type;
    resource = textOf(node);
    creativeType = strAttr(node, "creativeType");
    break;
  }
  // VAST 1.0: the resource is a <URL> (or <Code>), its kind the resourceType attribute.
  if (resourceType === "" && (kid(nl, "URL") || kid(nl, "Code"))) {
    const declared = strAttr(nl, "resourceType").toLowerCase();
    resourceType = declared === "html" ? "html" : declared === "iframe" ? "iframe" : "static";
    resource = kid(nl, "URL") ? urlText(nl) : textOf(kid(nl, "Code"));
    creativeType = strAttr(nl, "creativeType");
  }
  return {
    id: strAttr(nl, "id"),
    width: intAttr(nl, "width"),
    height: intAttr(nl, "height"),
    resourceType,
    resource,
    creativeType,
    clickThrough: textOf(kid(nl, "NonLinearClickThrough")),
    minSuggestedDuration: strAttr(nl, "minSuggestedDuration"),
    apiFramework: strAttr(nl, "apiFramework"),
  };
}

export function readAd(ad: XmlNode): AdInfo {
  const inline = kid(ad, "InLine");
  const wrapper = inline ? undefined : kid(ad, "Wrapper");
  const body = inline ?? wrapper;
  const info: AdInfo = {
    type: inline ? "inline" : wrapper ? "wrapper" : "unknown",
    body,
    adSystem: textOf(kid(body, "AdSystem")),
    adTitle: textOf(kid(body, "AdTitle")),
    impressions: [],
    wrapperUri: undefined,
    trackingEvents: [],
    creatives: [],
    otherCreatives: [],
  };
  if (!body) return info;
  for (const imp of kids(body, "Impression")) {
    // VAST 1 nests the URL in <URL>; VAST 2+ has it as the element's text.
    const urlKids = kids(imp, "URL");
    const values = urlKids.length > 0 ? urlKids.map(textOf) : [textOf(imp)];
    for (const v of values) if (v !== "") info.impressions.push(v);
  }
  if (wrapper) {
    const uri = textOf(kid(wrapper, "VASTAdTagURI")) || textOf(path(wrapper, "VASTAdTagURL", "URL"));
    info.wrapperUri = uri === "" ? undefined : uri;
  }
  for (const node of descendants(body)) {
    if (node.name.toLowerCase() === "tracking" && attr(node, "event") !== undefined) {
      const url = urlText(node);
      if (url !== "") info.trackingEvents.push({ event: strAttr(node, "event"), url });
    }
  }
  // A <Creative> holds one of Linear, NonLinearAds or CompanionAds (VAST 2-4). Companions accompany a linear or
  // non-linear ad and are not played on their own, so they are not creatives of the report.
  // VAST 1.0: a <Video> is the ad's linear creative, <NonLinearAds> its overlays, both directly in the InLine.
  const video = kid(body, "Video");
  if (video) info.creatives.push({ kind: "linear", ...readVast1Video(video) });
  const vast1Overlays = kid(body, "Creatives") ? undefined : kid(body, "NonLinearAds");
  if (vast1Overlays) info.creatives.push({ kind: "nonlinear", id: "", adId: "", nonLinears: kids(vast1Overlays, "NonLinear").map(readNonLinear) });
  for (const creative of kids(kid(body, "Creatives"), "Creative")) {
    const linear = kid(creative, "Linear");
    const nonLinearAds = kid(creative, "NonLinearAds");
    if (linear) {
      info.creatives.push({ kind: "linear", ...readLinear(creative, linear) });
    } else if (nonLinearAds) {
      info.creatives.push({
        kind: "nonlinear",
        id: strAttr(creative, "id"),
        adId: strAttr(creative, "adId"),
        nonLinears: kids(nonLinearAds, "NonLinear").map(readNonLinear),
      });
    } else {
      info.otherCreatives.push(kid(creative, "CompanionAds") ? "companion" : "empty");
    }
  }
  return info;
}

// Elements whose URL a player requests by itself (documents, media, resources, pixels). Click-throughs are left out:
// they are pages the viewer opens, not loads the player makes.
const LOADED_URL_ELEMENTS = new Set(
  [
    "VASTAdTagURI",
    "Impression",
    "Error",
    "Tracking",
    "ClickTracking",
    "CompanionClickTracking",
    "NonLinearClickTracking",
    "IconClickTracking",
    "IconViewTracking",
    "MediaFile",
    "Mezzanine",
    "InteractiveCreativeFile",
    "StaticResource",
    "IFrameResource",
    "JavaScriptResource",
    "ExecutableResource",
    "ClosedCaptionFile",
    "Viewable",
    "NotViewable",
    "ViewUndetermined",
    "URL",
  ].map((s) => s.toLowerCase()),
);

/** Raw (trimmed) URL values of the elements above, in the ad's subtree and the document's root-level Error. */
export function loadedUrls(doc: VastDocument, ad: XmlNode | undefined): string[] {
  const out: string[] = [];
  for (const e of kids(doc.root, "Error")) out.push(textOf(e));
  if (ad) {
    for (const node of descendants(ad)) {
      if (LOADED_URL_ELEMENTS.has(node.name.toLowerCase())) out.push(textOf(node));
    }
  }
  return out.filter((u) => u !== "");
}
