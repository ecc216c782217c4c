import { resolveChain, type ChainResult, type ChainStep } from "./chain.ts";
import { VastInputError } from "./errors.ts";
import type { FetchContext } from "./fetch-document.ts";
import { DEADLINE_REACHED, ScanOutOfTimeError } from "./scan-budget.ts";
import { isHttpUrl, resolveVastUrl } from "./urls.ts";
import { readAd, type AdInfo } from "./vast-document.ts";
import type { XmlNode } from "./xml-tree.ts";

// Every <Ad> of the scanned document, as a player handles a pod (ads with `sequence`, played in order) or a buffet
// (stand-alone ads): each ad is resolved to what it plays — an inline ad as it is, a wrapper through its own chain of
// VASTAdTagURIs. The scanned document's first ad is the main chain (resolveChain); when that chain ends in a document
// with several ads (a pod behind a wrapper), those ads are the first ad's.

export interface PodAd {
  /** The <Ad> of the scanned document this entry stands for (its id and sequence are the pod's). */
  slot: XmlNode;
  /** The ad analysed: the slot itself, or the inline ad its wrapper chain ended in. */
  node: XmlNode;
  info: AdInfo;
  /** The document the (inline) ad is in: its base URL resolves the ad's relative URLs, its root <Error> counts. */
  step: ChainStep;
  /** Impression URLs a player fires for this ad: its wrappers' and its own, with the base URL each resolves against. */
  impressions: Array<{ raw: string; baseUrl: string }>;
  /** Tracking events its wrappers add (a player fires the wrappers' trackers too). */
  wrapperEvents: string[];
  /** Why the ad is listed but not analysed (its chain failed, too many ads); empty when it is analysed. */
  error: string;
}

const impressionsOf = (steps: readonly ChainStep[]) => steps.flatMap((s) => (s.ad?.impressions ?? []).map((raw) => ({ raw, baseUrl: s.baseUrl })));
const eventsOf = (steps: readonly ChainStep[]) => steps.flatMap((s) => (s.ad?.trackingEvents ?? []).map((t) => t.event));

export async function resolvePod(chain: ChainResult, ctx: FetchContext, maxAds: number): Promise<PodAd[]> {
  const scanned = chain.steps[0];
  if (!scanned?.doc || !scanned.adNode || !scanned.ad) return [];
  const out: PodAd[] = [];
  const listed = (node: XmlNode, info: AdInfo, error: string): PodAd => ({ slot: node, node, info, step: scanned, impressions: [], wrapperEvents: [], error });
  for (const [i, node] of scanned.doc.ads.entries()) {
    const info = i === 0 ? scanned.ad : readAd(node);
    if (out.length >= maxAds) {
      out.push(listed(node, info, `not analysed: more than ${maxAds} ads`));
      continue;
    }
    if (i === 0) {
      const end = chain.inline;
      if (!end?.doc || !end.adNode) {
        out.push(listed(node, info, chain.errors.at(-1) ?? "the wrapper chain did not end in an inline ad"));
        continue;
      }
      // The chain's own ad, then any other ad of the document it ended in (a pod behind the wrapper).
      const wrappers = chain.steps.slice(0, -1);
      out.push({ slot: node, node: end.adNode, info: end.ad!, step: end, impressions: impressionsOf(chain.steps), wrapperEvents: eventsOf(wrappers), error: "" });
      if (end !== scanned) {
        for (const extra of end.doc.ads.slice(1)) {
          const extraInfo = readAd(extra);
          if (out.length >= maxAds) out.push({ ...listed(extra, extraInfo, `not analysed: more than ${maxAds} ads`), step: end });
          else if (extraInfo.type !== "inline") out.push({ ...listed(extra, extraInfo, "a wrapper inside a wrapper's pod: not followed"), step: end });
          else out.push({ slot: extra, node: extra, info: extraInfo, step: end, impressions: impressionsOf([{ ...end, ad: extraInfo }]), wrapperEvents: eventsOf(wrappers), error: "" });
        }
      }
      continue;
    }
    if (info.type === "inline") {
      out.push({ slot: node, node, info, step: scanned, impressions: impressionsOf([{ ...scanned, ad: info }]), wrapperEvents: [], error: "" });
      continue;
    }
    if (info.type !== "wrapper") {
      out.push(listed(node, info, "neither <InLine> nor <Wrapper>"));
      continue;
    }
    // A wrapper of the pod: its own chain, as the player follows it when its turn comes.
    const target = info.wrapperUri === undefined ? undefined : resolveVastUrl(info.wrapperUri, scanned.baseUrl);
    if (!isHttpUrl(target)) {
      out.push(listed(node, info, info.wrapperUri === undefined ? "the wrapper has no VASTAdTagURI" : "the wrapper's VASTAdTagURI is not an http(s) URL"));
      continue;
    }
    let sub: ChainResult;
    try {
      sub = await resolveChain(target.href, ctx, { wrapperTarget: true });
    } catch (err) {
      if (err instanceof ScanOutOfTimeError) {
        out.push(listed(node, info, `its wrapper target ${target.href} was not fetched: ${DEADLINE_REACHED}`));
        continue;
      }
      if (!(err instanceof VastInputError)) throw err;
      out.push(listed(node, info, `its wrapper target ${target.href}: ${err.message.replace(/^data: /, "")}`));
      continue;
    }
    if (!sub.inline?.adNode || !sub.inline.ad) {
      out.push(listed(node, info, `its wrapper chain did not end in an ad: ${sub.errors.at(-1) ?? "no inline ad"}`));
      continue;
    }
    const own = { ...scanned, ad: info };
    out.push({
      slot: node, node: sub.inline.adNode, info: sub.inline.ad, step: sub.inline,
      impressions: impressionsOf([own, ...sub.steps]), wrapperEvents: eventsOf([own, ...sub.steps.slice(0, -1)]), error: "",
    });
  }
  return out;
}
