import { Measurement_Confidence, type Measurement, type TagReport } from "@cva/contracts";
import {
  arr, bool, consoleSchema, consoleView, cookieSchema, cookieView, dialogSchema, dialogView, dimensionsSchema,
  dimensionsView, int, metaSchema, metaView, missingAssetSchema, missingAssetView, networkSchema, networkView,
  obj, screenshotSchema, screenshotView, sslSchema, sslView, storageItemSchema, storageItemView, str, type JsonSchema,
} from "./shared.ts";

// v3 (tag and zip): whether the time-based fields describe the creative or a starved machine.
export const measurementSchema = obj(
  {
    confidence: str("high; low when the scanning machine starved the render enough to move a timing field beyond its tolerance (see reasons); unknown for a report stored before this was measured"),
    reasons: arr(str(), "one sentence per cause, with its size (seconds, one decimal), e.g. \"the renderer was kept from the CPU for 1.4 s before the first paint\", or, for an asset the scanner's own process held back while it loaded (so a timeline it starts, such as an SVG image's animation, started late), \"the creative's image badge.svg (arrived while the creative moved) loaded while the scanner's own network path (request interception, egress proxy) was kept from the CPU for 0.9 s\", or, when the browser or the renderer was kept from running between the renderer's tasks, \"the renderer answered the scanner 1.1 s late while the creative rendered with no work of its own to explain it (the browser or the renderer was kept from running)\"; empty when high"),
    low_confidence_fields: arr(str(), "the fields the starvation may have moved: time_to_visual_start, dom_content_loaded, animation_duration, cpu (then a lower bound), cpu_usage (a lower bound: the main thread never answered after the render), landing_page (the click-through gave up at its bound while the scanner was starved); empty when high"),
  },
  { description: "how far time_to_visual_start, dom_content_loaded and animation_duration can be trusted on this scan" },
);

export function measurementView(m: Measurement | undefined) {
  const c = m?.confidence ?? Measurement_Confidence.UNSPECIFIED;
  const low = c === Measurement_Confidence.LOW;
  return {
    confidence: low ? "low" : c === Measurement_Confidence.HIGH ? "high" : "unknown",
    reasons: low ? [...m!.reasons] : [],
    low_confidence_fields: low ? [...m!.lowConfidenceFields] : [],
  };
}

// The fields every ad tag / zip report shares (v2 and v3), in the spec's order.
export function tagBaseSchema(): Record<string, JsonSchema> {
  return {
    "3pas": str("third-party ad server if detected; blank otherwise"),
    blocked_by_adblock: bool(),
    console: consoleSchema,
    cookies: arr(cookieSchema),
    cpu_usage: int("milliseconds"),
    creative_rendered: bool(),
    dialogs: arr(dialogSchema, "pop-up dialogs (alert, confirm, prompt, beforeunload)"),
    dimensions: dimensionsSchema,
    dom_content_loaded: int("milliseconds"),
    has_border: bool(),
    has_video: bool(),
    iframes: int(),
    local_storage: arr(storageItemSchema, "key/value pairs in window.localStorage"),
    memory_usage: int("bytes"),
    meta: metaSchema,
    missing_assets: arr(missingAssetSchema, "requests that failed or answered with an error status"),
    mobile_friendly: bool(),
    network: networkSchema,
    job_id: str(),
    screenshot: screenshotSchema,
    ssl: sslSchema("insecure_urls"),
    uses_document_write: bool(),
  };
}

export function tagBaseView(r: TagReport | undefined, creativeType: "ad_tag" | "zip", apiVersion: "v2" | "v3") {
  return {
    "3pas": r?.thirdPartyAdServer ?? "",
    blocked_by_adblock: r?.blockedByAdblock ?? false,
    console: consoleView(r?.console),
    cookies: (r?.cookies ?? []).map(cookieView),
    cpu_usage: Number(r?.cpuUsageMs ?? 0),
    creative_rendered: r?.creativeRendered ?? false,
    dialogs: (r?.dialogs ?? []).map(dialogView),
    dimensions: dimensionsView(r?.dimensions),
    dom_content_loaded: Number(r?.domContentLoadedMs ?? 0),
    has_border: r?.hasBorder ?? false,
    has_video: r?.hasVideo ?? false,
    iframes: r?.iframes ?? 0,
    local_storage: (r?.localStorage ?? []).map(storageItemView),
    memory_usage: Number(r?.memoryUsageBytes ?? 0),
    meta: metaView(r?.meta, creativeType, apiVersion),
    missing_assets: (r?.missingAssets ?? []).map(missingAssetView),
    mobile_friendly: r?.mobileFriendly ?? false,
    network: networkView(r?.network),
    job_id: r?.jobId ?? "",
    screenshot: screenshotView(r?.screenshot),
    ssl: sslView(r?.ssl, "insecure_urls"),
    uses_document_write: r?.usesDocumentWrite ?? false,
  };
}
