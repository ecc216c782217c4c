import type { LintVersion } from "./types.ts";

// The IAB VAST macros (VAST 3.0 §2.4.3 and the VAST 4.x macro list, iabtechlab.com/vast "Macros"; machine-readable in
// the IAB "vast" repository, vast4macros/data/macros-data.json): name, the version that introduced it, and where a
// player fills it. "4.x" entries of that list (added after 4.2) count as 4.3; the DSA macros ("next VAST release")
// too, so a document using them is not told they are unknown.

export type MacroContext = "all" | "tracking" | "request" | "error" | "click" | "verification";

export interface IabMacro {
  since: LintVersion;
  /** all: tracking pixels and VAST request URIs; tracking: tracking pixels only; request: VAST request URIs only. */
  context: MacroContext;
  /** Set when the list deprecates it, with the replacement. */
  deprecated?: { since: LintVersion; use: string };
}

const m = (since: LintVersion, context: MacroContext, deprecated?: IabMacro["deprecated"]): IabMacro => ({ since, context, deprecated });

export const IAB_MACROS: ReadonlyMap<string, IabMacro> = new Map<string, IabMacro>([
  ["TIMESTAMP", m("4.0", "all")],
  ["CACHEBUSTING", m("3.0", "all")],
  ["CONTENTPLAYHEAD", m("3.0", "all", { since: "4.1", use: "[ADPLAYHEAD] or [MEDIAPLAYHEAD]" })],
  ["MEDIAPLAYHEAD", m("4.1", "all")],
  ["BREAKPOSITION", m("4.1", "all")],
  ["BLOCKEDADCATEGORIES", m("4.1", "request")],
  ["ADCATEGORIES", m("4.1", "request")],
  ["ADCOUNT", m("4.1", "all")],
  ["TRANSACTIONID", m("4.1", "all")],
  ["PLACEMENTTYPE", m("4.1", "all")],
  ["ADTYPE", m("4.1", "all")],
  ["UNIVERSALADID", m("4.1", "tracking")],
  ["BREAKMAXDURATION", m("4.2", "all")],
  ["BREAKMAXADS", m("4.2", "all")],
  ["BREAKMINADLENGTH", m("4.2", "all")],
  ["BREAKMAXADLENGTH", m("4.2", "all")],
  ["IFA", m("4.1", "all")],
  ["IFATYPE", m("4.1", "all")],
  ["CLIENTUA", m("4.1", "all")],
  ["SERVERUA", m("4.1", "all")],
  ["DEVICEUA", m("4.1", "all")],
  ["SERVERSIDE", m("4.1", "all")],
  ["DEVICEIP", m("4.1", "all")],
  ["LATLONG", m("4.1", "all")],
  ["DOMAIN", m("4.1", "all")],
  ["PAGEURL", m("4.1", "all")],
  ["APPBUNDLE", m("4.1", "all")],
  ["VASTVERSIONS", m("4.1", "request")],
  ["APIFRAMEWORKS", m("4.1", "request")],
  ["EXTENSIONS", m("4.1", "request")],
  ["VERIFICATIONVENDORS", m("4.1", "request")],
  ["OMIDPARTNER", m("4.1", "all")],
  ["MEDIAMIME", m("4.1", "request")],
  ["PLAYERCAPABILITIES", m("4.1", "all")],
  ["CLICKTYPE", m("4.1", "all")],
  ["PLAYERSTATE", m("4.1", "tracking")],
  ["INVENTORYSTATE", m("4.1", "all")],
  ["PLAYERSIZE", m("4.1", "all")],
  ["ADPLAYHEAD", m("4.1", "tracking")],
  ["ASSETURI", m("3.0", "tracking")],
  ["CONTENTID", m("4.1", "all")],
  ["CONTENTURI", m("4.1", "all")],
  ["PODSEQUENCE", m("4.1", "tracking")],
  ["ADSERVINGID", m("4.1", "tracking")],
  ["CLICKPOS", m("4.1", "click")],
  ["ERRORCODE", m("3.0", "error")],
  ["REASON", m("4.1", "verification")],
  ["LIMITADTRACKING", m("4.1", "all")],
  ["REGULATIONS", m("4.1", "all")],
  ["GDPRCONSENT", m("4.1", "all")],
  ["STOREID", m("4.3", "all")],
  ["STOREURL", m("4.3", "all")],
  ["PLAYBACKMETHODS", m("4.3", "all")],
  ["CONTENTCAT", m("4.3", "request")],
  ["GPPSTRING", m("4.3", "all")],
  ["GPPSECTIONID", m("4.3", "all")],
  ["DSAREQUIRED", m("4.3", "request")],
  ["DSAPARAMS", m("4.3", "request")],
  ["DSAPUBRENDER", m("4.3", "request")],
]);

/**
 * Names players commonly fill that are not IAB macros, with the IAB one to use instead ("" when there is none): they
 * work in some players only.
 */
export const NON_STANDARD_MACROS: ReadonlyMap<string, string> = new Map([
  ["CACHEBUSTER", "[CACHEBUSTING]"],
  ["RANDOM", "[CACHEBUSTING]"],
  ["RANDOMNUMBER", "[CACHEBUSTING]"],
  ["CB", "[CACHEBUSTING]"],
  ["US_PRIVACY", "[REGULATIONS] / [GPPSTRING]"],
  ["GPP_STRING", "[GPPSTRING]"],
  ["GPP_SID", "[GPPSECTIONID]"],
  ["GDPR", "[REGULATIONS]"],
  ["GDPR_CONSENT", "[GDPRCONSENT]"],
  ["ERROR_CODE", "[ERRORCODE]"],
  ["PAGE_URL", "[PAGEURL]"],
  ["REFERRER_URL", "[PAGEURL]"],
]);
