import { create } from "@bufbuild/protobuf";
import { VastNonLinearSchema, type VastNonLinear } from "@cva/contracts";
import { OutboundError } from "@cva/platform";
import { mapBounded } from "./concurrency.ts";
import { describeFetchError } from "./errors.ts";
import { playerGet, type FetchContext } from "./fetch-document.ts";
import { expandMacros } from "./macros.ts";
import { chargeForFailure, DEADLINE_REACHED, formatBytes } from "./scan-budget.ts";
import { isHttpUrl, resolveVastUrl } from "./urls.ts";
import type { NonLinearInfo } from "./vast-document.ts";

/** Overlay resources fetched at most per scan, and the largest body read (an overlay image is small). */
export const MAX_OVERLAYS = 12;
const OVERLAY_MAX_BYTES = 5 * 1024 * 1024;

/** Image formats a browser-based player displays, by their first bytes. */
function looksLikeImage(body: Buffer): boolean {
  const head = body.subarray(0, 16);
  const ascii = head.toString("latin1");
  return (
    (head[0] === 0x89 && ascii.slice(1, 4) === "PNG") ||
    (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) ||
    ascii.startsWith("GIF87a") || ascii.startsWith("GIF89a") ||
    (ascii.startsWith("RIFF") && ascii.slice(8, 12) === "WEBP") ||
    /^\s*(<\?xml[^>]*>\s*)?<svg[\s>]/i.test(body.subarray(0, 512).toString("utf8"))
  );
}

/**
 * Each overlay (NonLinear) as reported, its resource loaded the way a player loads it: a StaticResource or
 * IFrameResource URL is fetched (macros filled, under the outbound policy) and must answer 2xx with a body — for a
 * static image resource, a body that is an image; an HTMLResource is inline markup and must not be empty. `error`
 * says why an overlay cannot be shown; the declared values are reported as written (URL resolved).
 */
export async function loadOverlays(nonLinears: NonLinearInfo[], baseUrl: string, ctx: FetchContext): Promise<VastNonLinear[]> {
  return mapBounded(nonLinears, ctx.limits.pixelConcurrency, async (nl, i) => {
    const url = nl.resourceType === "static" || nl.resourceType === "iframe" ? resolveVastUrl(nl.resource, baseUrl) : undefined;
    const out = create(VastNonLinearSchema, {
      id: nl.id,
      width: nl.width,
      height: nl.height,
      resourceType: nl.resourceType,
      resourceUrl: url?.href ?? (nl.resourceType === "html" ? "" : nl.resource),
      creativeType: nl.creativeType,
      clickThroughUrl: nl.clickThrough === "" ? "" : (resolveVastUrl(nl.clickThrough, baseUrl)?.href ?? nl.clickThrough),
      minSuggestedDuration: nl.minSuggestedDuration,
      apiFramework: nl.apiFramework,
    });
    if (nl.resourceType === "") {
      out.error = "the NonLinear has no StaticResource, IFrameResource or HTMLResource: nothing to show";
      return out;
    }
    if (nl.resourceType === "html") {
      if (nl.resource.trim() === "") out.error = "the HTMLResource is empty";
      return out;
    }
    if (!isHttpUrl(url)) {
      out.error = `the ${nl.resourceType === "static" ? "StaticResource" : "IFrameResource"} ${JSON.stringify(nl.resource.slice(0, 200))} is not an http(s) URL`;
      return out;
    }
    if (i >= MAX_OVERLAYS) {
      out.error = `not loaded: more than ${MAX_OVERLAYS} overlays`;
      return out;
    }
    // Within the scan's deadline and byte budget, like every download of the scan.
    const time = ctx.budget.time(ctx.limits.fetchTimeoutMs);
    if (time.ms <= 0) {
      out.error = `not loaded: ${DEADLINE_REACHED}`;
      return out;
    }
    const grant = await ctx.budget.reserve(OVERLAY_MAX_BYTES);
    if (grant.bytes === 0) {
      grant.settle(0);
      out.error = `not loaded: the scan's byte budget of ${formatBytes(ctx.budget.totalBytes)} was reached`;
      return out;
    }
    try {
      const res = await playerGet(ctx.rewriteUrl(expandMacros(url)), ctx, grant, time.ms);
      out.httpCode = res.status;
      out.contentType = res.headers["content-type"] ?? "";
      if (res.status < 200 || res.status > 299) out.error = `the resource answered HTTP ${res.status}`;
      else if (res.body.length === 0) out.error = "the resource is empty";
      else if (nl.resourceType === "static" && /^image\//i.test(nl.creativeType) && !looksLikeImage(res.body)) {
        out.error = `the StaticResource is declared ${nl.creativeType} but is not an image`;
      }
    } catch (e) {
      grant.settle(chargeForFailure(e, grant.bytes));
      if (ctx.signal?.aborted) throw ctx.signal.reason ?? e;
      const code = e instanceof OutboundError ? e.code : undefined;
      out.error = time.cut && code === "timeout" ? `the resource was not loaded: ${DEADLINE_REACHED}`
        : grant.bytes < OVERLAY_MAX_BYTES && code === "too_large" ? "the resource was not loaded whole: the scan's byte budget was reached"
        : `the resource could not be loaded: ${describeFetchError(e)}`;
    }
    return out;
  });
}
