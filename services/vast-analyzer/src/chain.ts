import { OutboundError, type SafeResponse } from "@cva/platform";
import { describeFetchError, inputErrorFor, isInputRefusal, unreachableErrorFor } from "./errors.ts";
import { isUnreachable } from "./unreachable.ts";
import { fetchVastDocument, keepForPixels, type FetchContext } from "./fetch-document.ts";
import { ScanOutOfTimeError } from "./scan-budget.ts";
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
  /** What this document turned out to be (as the report's `type`); "unavailable" when none was loaded. */
  status: FirstDocStatus;
  /** Why the chain stopped here (unreachable, HTTP error, malformed, loop, limit, no fill); absent when it went on. */
  error?: string;
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

/** Ends the chain at `step`: its error (for the report's wrapper_chain) and the report's errors. */
function stop(result: ChainResult, step: ChainStep, message: string, status?: FirstDocStatus): ChainResult {
  if (status) step.status = status;
  if (result.steps[0] === step) result.firstStatus = step.status;
  step.error = message;
  result.errors.push(message);
  return result;
}

/**
 * Fetches the VAST URL and follows Wrapper/VASTAdTagURI (or VAST 1 style VASTAdTagURL/URL) of the first ad, as a
 * player does, up to limits.maxWrapperRedirects. Problems end the chain with a message in `errors`; only a VAST URL
 * the outbound policy refuses or nothing answers throws (VastInputError), and one the scan's deadline leaves no time
 * for (ScanOutOfTimeError). Loops are caught by URL identity before they are fetched. `wrapperTarget`: the URL is a
 * pod wrapper's target, which keeps time back for the impressions like any wrapper hop.
 */
export async function resolveChain(vastUrl: string, ctx: FetchContext, opts: { wrapperTarget?: boolean } = {}): Promise<ChainResult> {
  const result: ChainResult = { steps: [], wrapperRedirects: 0, firstStatus: "unavailable", errors: [] };
  const seen = new Set<string>();
  const start = resolveVastUrl(vastUrl, undefined);
  if (!isHttpUrl(start)) {
    throw inputErrorFor(new OutboundError(start ? "bad_scheme" : "bad_url", "not an http(s) URL"));
  }
  let next: URL = start;

  for (let index = 0; ; index++) {
    const step: ChainStep = { url: next.href, baseUrl: next.href, status: "unavailable" };
    result.steps.push(step);
    seen.add(chainKey(next));
    const what = `${label(index)} ${next.href}`;
    // Fetched as a player fetches it, macros filled; listed, resolved against and compared as written.
    const keepMs = index > 0 || opts.wrapperTarget ? keepForPixels(ctx.limits) : 0;
    const fetched = await fetchVastDocument(expandMacros(next), ctx, { keepMs });
    if (!fetched.ok && fetched.budget) {
      // The scan's own budget ended the fetch, not the server: the VAST URL itself out of time is a failed scan (there
      // is nothing to report on), a wrapper hop is where the chain stopped.
      if (index === 0 && fetched.budget.kind === "deadline") throw new ScanOutOfTimeError();
      return stop(result, step, `${what} ${fetched.budget.message}`, "unavailable");
    }
    if (!fetched.ok) {
      if (index === 0 && isInputRefusal(fetched.error)) throw inputErrorFor(fetched.error);
      // Nothing answers the VAST URL: there is no document to report on, and the client is told where and why.
      if (index === 0 && isUnreachable(fetched.error)) throw unreachableErrorFor(fetched.error);
      // Over the size cap is a document we refuse, not one we could not reach.
      const tooLarge = fetched.error instanceof OutboundError && fetched.error.code === "too_large";
      return stop(result, step, `${what} could not be fetched: ${describeFetchError(fetched.error)}`, tooLarge ? "invalid" : "unavailable");
    }
    const res = fetched.res;
    step.response = res;
    // Relative URIs resolve against where the document really came from; without HTTP redirects that is the URL
    // as written (which also keeps the test rewrite seam invisible here).
    if (res.redirects.length > 0) step.baseUrl = res.url;
    if (res.status < 200 || res.status > 299) {
      return stop(result, step, `${what} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`, "unavailable");
    }
    if (res.body.length === 0) return stop(result, step, `${what} is empty (no XML)`, "empty");

    const parsed = parseXmlDocument(decodeXmlBytes(res.body), {
      maxDepth: ctx.limits.maxXmlDepth,
      maxElements: ctx.limits.maxXmlElements,
    });
    if (!parsed.ok) return stop(result, step, `${label(index)} ${next.href}: ${parsed.refused ? "refused: " : ""}${parsed.reason}`, "invalid");
    const doc = readDocument(parsed.root);
    step.doc = doc;
    if (doc.kind === "vmap") {
      return stop(result, step, `${label(index)} is a VMAP playlist (ad breaks), not a VAST ad response; its ad tags are not followed`, "vmap");
    }
    if (doc.kind === "other") {
      return stop(result, step, `${label(index)} is not VAST: the root element is <${doc.rootName.slice(0, 64)}>`, "invalid");
    }
    const adNode = doc.ads[0];
    if (!adNode) {
      const rootErrors = kids(doc.root, "Error").map(textOf).filter((s) => s !== "").length;
      return stop(
        result, step,
        `${label(index)} has no ad (an empty VAST response, no fill${rootErrors > 0 ? "; it carries only an <Error> URL" : ""})`,
        "empty",
      );
    }
    const ad = readAd(adNode);
    step.adNode = adNode;
    step.ad = ad;
    step.status = ad.type === "unknown" ? "invalid" : ad.type;
    if (index === 0) result.firstStatus = step.status;
    if (ad.type === "unknown") return stop(result, step, `${label(index)}: the first <Ad> has neither <InLine> nor <Wrapper>`);
    if (ad.type === "inline") {
      result.inline = step;
      return result;
    }

    // A wrapper: where does it point?
    if (ad.wrapperUri === undefined) return stop(result, step, `${label(index)}: the wrapper has no VASTAdTagURI`);
    const target = resolveVastUrl(ad.wrapperUri, step.baseUrl);
    if (!isHttpUrl(target)) {
      return stop(result, step, `${label(index)}: the wrapper's VASTAdTagURI ${JSON.stringify(ad.wrapperUri.slice(0, 200))} is not an http(s) URL`);
    }
    if (seen.has(chainKey(target))) {
      return stop(result, step, `wrapper loop: ${label(index)} points back to ${target.href}, which this chain already fetched; not followed`);
    }
    if (result.wrapperRedirects >= ctx.limits.maxWrapperRedirects) {
      return stop(
        result, step,
        `too many wrapper redirects: stopped after ${ctx.limits.maxWrapperRedirects} (VAST error 302, wrapper limit reached); ${target.href} not fetched`,
      );
    }
    result.wrapperRedirects++;
    next = target;
  }
}
