import { loadedUrls } from "./vast-document.ts";
import type { ChainStep } from "./chain.ts";
import { resolveVastUrl } from "./urls.ts";

/**
 * `ssl.non_secure_urls` (proto: insecure_urls): every http:// URL the VAST makes a player load, over the whole chain —
 * the VAST URL and each wrapper URI fetched (also HTTP redirect hops), and in the analysed ad of every document:
 * impressions, errors, tracking and click-tracking pixels, media and mezzanine files, creative resources (static,
 * iframe, JavaScript, executable, interactive), closed captions, viewability pixels. Click-through URLs are left out:
 * the viewer opens them, the player does not load them. Relative values are resolved first. Deduplicated, in order.
 */
export function insecureUrls(steps: ChainStep[]): string[] {
  const out = new Set<string>();
  const add = (raw: string, base: string | undefined): void => {
    const u = resolveVastUrl(raw, base);
    if (u?.protocol === "http:") out.add(u.href);
  };
  for (const step of steps) {
    for (const hop of step.response?.redirects ?? []) add(hop, undefined);
    add(step.url, undefined);
    if (step.doc) for (const raw of loadedUrls(step.doc, step.adNode)) add(raw, step.baseUrl);
  }
  return [...out];
}
