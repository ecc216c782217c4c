import { randomInt } from "node:crypto";

// What a player does to a URL before requesting it: fill the macros it knows. Every URL the analyzer requests —
// wrapper targets, impressions, media files, overlay resources — goes through here, because ad servers answer a
// literal "[CACHEBUSTING]" differently (cached, 400, or a tracking-only response) and the scan must see what a
// player sees. The report keeps listing URLs as written.

/** Cache-buster spellings: VAST 3/4 [CACHEBUSTING], the common [CACHEBUSTER] and Google Ad Manager's %%CACHEBUSTER%%. */
const CACHEBUSTER = /\[CACHEBUSTING\]|%5BCACHEBUSTING%5D|\[CACHEBUSTER\]|%5BCACHEBUSTER%5D|%%CACHEBUSTER%%/gi;
/** VAST 3/4 [TIMESTAMP]: ISO 8601, percent-encoded. */
const TIMESTAMP = /\[TIMESTAMP\]|%5BTIMESTAMP%5D/gi;

/**
 * Fills [CACHEBUSTING] (an 8-digit random number, as VAST 3 §2.4.3 asks), [TIMESTAMP] and their common spellings, and
 * percent-encodes the brackets of any other macro, which a player that does not know it sends as written. Only path
 * and query carry macros; the host may legitimately hold brackets (an IPv6 literal).
 */
export function expandMacros(url: URL, now: Date = new Date()): string {
  const fill = (s: string): string =>
    s
      .replace(CACHEBUSTER, () => String(randomInt(10_000_000, 100_000_000)))
      .replace(TIMESTAMP, encodeURIComponent(now.toISOString()))
      .replace(/\[/g, "%5B")
      .replace(/\]/g, "%5D");
  return `${url.origin}${fill(url.pathname)}${fill(url.search)}`;
}
