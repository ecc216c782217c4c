import { descendants, textOf } from "./xml-tree.ts";
import type { VastDocument } from "./vast-document.ts";

// A URL in a VAST response may carry the macros a *player* fills ([CACHEBUSTING], [ERRORCODE], …: the IAB list
// below). Anything else is a macro the *ad server* should have filled before serving and did not: GAM's
// %%CACHEBUSTER%% / %%PATTERN:…%%, OpenRTB's ${AUCTION_PRICE}, template {{…}}, or a bracket macro no player knows.
// Such a URL is requested as written and its tracking or click is lost or wrong.

/** IAB VAST 4.x macros (and the legacy names players fill): what a player replaces. */
const PLAYER_MACROS = new Set(
  (
    "ADCATEGORIES ADCOUNT ADPLAYHEAD ADSERVINGID ADTYPE APIFRAMEWORKS APPBUNDLE ASSETURI BLOCKEDADCATEGORIES " +
    "BREAKMAXADLENGTH BREAKMAXADS BREAKMAXDURATION BREAKMINADLENGTH BREAKMINDURATION BREAKPOSITION CACHEBUSTING " +
    "CLICKPOS CLICKTYPE CLIENTUA CONTENTCAT CONTENTID CONTENTPLAYHEAD CONTENTURI DEVICEIP DEVICEUA DOMAIN ERRORCODE " +
    "EXTENSIONS GDPRCONSENT IFA IFATYPE INVENTORYSTATE LATLONG LIMITADTRACKING MEDIAMIME MEDIAPLAYHEAD OMIDPARTNER " +
    "PAGEURL PLACEMENTTYPE PLAYERCAPABILITIES PLAYERSIZE PLAYERSTATE PODSEQUENCE REASON REGULATIONS SERVERSIDE " +
    "SERVERUA STOREID STOREURL TIMESTAMP TRANSACTIONID UNIVERSALADID VASTVERSIONS VERIFICATIONVENDORS US_PRIVACY " +
    "GPP_STRING GPP_SID CACHEBUSTER"
  ).split(" "),
);

const SERVER_MACRO = /%%[A-Za-z0-9_:.\-]+%%|\$\{[A-Za-z0-9_]+\}|\{\{[^{}\s]{1,64}\}\}/;
const BRACKET_MACRO = /\[([A-Za-z][A-Za-z0-9_]{1,40})\]/g;
const URLISH = /^\s*(?:https?:)?\/\//i;

/** The macros in `url` that no player fills; empty when there are none. */
export function unexpandedMacrosIn(url: string): string[] {
  const out: string[] = [];
  const server = url.match(new RegExp(SERVER_MACRO, "g"));
  if (server) out.push(...server);
  for (const m of url.matchAll(BRACKET_MACRO)) if (!PLAYER_MACROS.has(m[1]!.toUpperCase())) out.push(m[0]);
  return out;
}

/** Every URL (element text that is a URL) of the documents that carries such a macro, as written, once each. */
export function findUnexpandedMacros(docs: readonly VastDocument[]): string[] {
  const found = new Set<string>();
  for (const doc of docs) {
    for (const node of descendants(doc.root)) {
      const text = textOf(node);
      if (!URLISH.test(text)) continue;
      if (unexpandedMacrosIn(text).length > 0) found.add(text.slice(0, 500));
    }
  }
  return [...found];
}
