import { OutboundError, type SafeResponse } from "@cva/platform";
import { describeFetchError, inputErrorFor, isInputRefusal } from "./errors.ts";
import { fetchVastDocument, type FetchContext } from "./fetch-document.ts";
import { expandMacros } from "./macros.ts";
import { readAd, readDocument, type AdInfo, type VastDocument } from "./vast-document.ts";
import { decodeXmlBytes, kids, parseXmlDocument, textOf, type XmlNode } from "./xml-tree.ts";
import { chainKey, isHttpUrl, resolveVastUrl } from "./urls.ts";

/** One fetched (or attempted) document of the chain. */
export interface ChainStep {
  /** The URL requested, as resolved from the VAST (before any test rewrite). */
  url: string;
  /** The URL relative VAST URIs resolve against: the final URL after HTTP redirects. */
  baseUrl: string;
  response?: SafeResponse;
  doc?: VastDocument;
  adNode?: XmlNode;
  ad?: AdInfo;
}

/** How the first document turned out; the report's `type` unless it is an ad type. */
export type FirstDocStatus = "unavailable" | "invalid" | "vmap" | "vast1" | "empty" | "inline" | "wrapper";

export interface ChainResult {
  steps: ChainStep[];
  /** VASTAdTagURI redirects actually followed. */
  wrapperRedirects: number;
  firstStatus: FirstDocStatus;
  /** The inline ad the chain ended in, if it got there. */
  inline?: ChainStep;
  errors: string[];
}

function label(index: number): string {
  return index === 0 ? "VAST document" : `wrapper target ${index}`;
}

/**
 * Fetches the VAST URL and follows Wrapper/VASTAdTagURI (or VAST 1 style VASTAdTagURL/URL) of the first ad, as a
 * player does, up to limits.maxWrapperRedirects. Problems end the chain with a message in `errors`; only a VAST URL
 * the outbound policy refuses throws (VastInputError). Loops are caught by URL identity before they are fetched.
 */
export async function resolveChain(vastUrl: string, ctx: FetchContext): Promise<ChainResult> {
  const result: ChainResult = { steps: [], wrapperRedirects: 0, firstStatus: "unavailable", errors: [] };
  const seen = new Set<string>();
  const start = resolveVastUrl(vastUrl, undefined);
  if (!isHttpUrl(start)) {
    throw inputErrorFor(new OutboundError(start ? "bad_scheme" : "bad_url", "not an http(s) URL"));
  }
  let next: URL = start;

  for (let index = 0; ; index++) {
    const step: ChainStep = { url: next.href, baseUrl: next.href };
    result.steps.push(step);
    seen.add(chainKey(next));
    // Fetched as a player fetches it, macros filled; listed, resolved against and compared as written.
    const fetched = await fetchVastDocument(expandMacros(next), ctx);
    if (!fetched.ok) {
      if (index === 0 && isInputRefusal(fetched.error)) throw inputErrorFor(fetched.error);
      // Over the size cap is a document we refuse, not one we could not reach.
      if (index === 0 && fetched.error instanceof OutboundError && fetched.error.code === "too_large") {
        result.firstStatus = "invalid";
      }
      result.errors.push(`${label(index)} ${next.href} could not be fetched: ${describeFetchError(fetched.error)}`);
      return result;
    }
    const res = fetched.res;
    step.response = res;
    // Relative URIs resolve against where the document really came from; without HTTP redirects that is the URL
    // as written (which also keeps the test rewrite seam invisible here).
    if (res.redirects.length > 0) step.baseUrl = res.url;
    if (res.status < 200 || res.status > 299) {
      result.errors.push(`${label(index)} ${next.href} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`);
      return result;
    }
    if (res.body.length === 0) {
      if (index === 0) result.firstStatus = "empty";
      result.errors.push(`${label(index)} ${next.href} is empty (no XML)`);
      return result;
    }

    const parsed = parseXmlDocument(decodeXmlBytes(res.body), {
      maxDepth: ctx.limits.maxXmlDepth,
      maxElements: ctx.limits.maxXmlElements,
    });
    if (!parsed.ok) {
      if (index === 0) result.firstStatus = "invalid";
      result.errors.push(`${label(index)} ${next.href}: ${parsed.refused ? "refused: " : ""}${parsed.reason}`);
      return result;
    }
    const doc = readDocument(parsed.root);
    step.doc = doc;
    if (doc.kind === "vmap") {
      if (index === 0) result.firstStatus = "vmap";
      result.errors.push(
        `${label(index)} is a VMAP playlist (ad breaks), not a VAST ad response; its ad tags are not followed`,
      );
      return result;
    }
    if (doc.kind === "other") {
      if (index === 0) result.firstStatus = "invalid";
      result.errors.push(`${label(index)} is not VAST: the root element is <${doc.rootName.slice(0, 64)}>`);
      return result;
    }
    if (doc.kind === "vast1") {
      if (index === 0) result.firstStatus = "vast1";
      step.adNode = doc.ads[0];
      step.ad = step.adNode ? readAd(step.adNode) : undefined;
      result.errors.push(
        `${label(index)} is VAST 1.0 (VideoAdServingTemplate); only VAST 2.0 to 4.3 documents are analysed`,
      );
      return result;
    }
    const adNode = doc.ads[0];
    if (!adNode) {
      if (index === 0) result.firstStatus = "empty";
      const rootErrors = kids(doc.root, "Error").map(textOf).filter((s) => s !== "").length;
      result.errors.push(
        `${label(index)} has no ad (an empty VAST response, no fill${rootErrors > 0 ? "; it carries only an <Error> URL" : ""})`,
      );
      return result;
    }
    const ad = readAd(adNode);
    step.adNode = adNode;
    step.ad = ad;
    if (index === 0) result.firstStatus = ad.type === "unknown" ? "invalid" : ad.type;
    if (ad.type === "unknown") {
      result.errors.push(`${label(index)}: the first <Ad> has neither <InLine> nor <Wrapper>`);
      return result;
    }
    if (ad.type === "inline") {
      result.inline = step;
      return result;
    }

    // A wrapper: where does it point?
    if (ad.wrapperUri === undefined) {
      result.errors.push(`${label(index)}: the wrapper has no VASTAdTagURI`);
      return result;
    }
    const target = resolveVastUrl(ad.wrapperUri, step.baseUrl);
    if (!isHttpUrl(target)) {
      result.errors.push(`${label(index)}: the wrapper's VASTAdTagURI ${JSON.stringify(ad.wrapperUri.slice(0, 200))} is not an http(s) URL`);
      return result;
    }
    if (seen.has(chainKey(target))) {
      result.errors.push(
        `wrapper loop: ${label(index)} points back to ${target.href}, which this chain already fetched; not followed`,
      );
      return result;
    }
    if (result.wrapperRedirects >= ctx.limits.maxWrapperRedirects) {
      result.errors.push(
        `too many wrapper redirects: stopped after ${ctx.limits.maxWrapperRedirects} (VAST error 302, wrapper limit reached); ${target.href} not fetched`,
      );
      return result;
    }
    result.wrapperRedirects++;
    next = target;
  }
}
