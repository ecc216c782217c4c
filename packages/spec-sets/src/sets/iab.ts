import type { Expected, LookupRule, Omission, Rule, SpecSet } from "./types.ts";
import { ATSC_A85, audioFileRules, imageFileRules, videoFileRules } from "./file-rules.ts";

// Spec set 0, "IAB guidelines". Every figure cites its row of spec/iab-guidelines.md (shared docs) and, through it,
// the public source. Where no IAB figure exists the rule is marked basis "industry" (someone else's published figure)
// or "product_default" (our choice, with its reason) — or the test is listed under `omitted` with why.

const GUIDE = "spec/iab-guidelines.md";

export const SOURCES = {
  weight:
    `${GUIDE}, row "Initial / subload (KB)": IAB New Ad Portfolio 2017, "Fixed Size Ad Specifications" ` +
    "(online.documentine.com/specifications/1/fixed-size-ad-specifications-iab.html; pdf4pro.com)",
  requests:
    `${GUIDE}, row "Initial-load file requests": IAB New Ad Portfolio 2017, General Ad Requirements ` +
    '("must not exceed ten file requests during initial file load"); the 2015 guidelines allowed 15 (docslib.org/doc/6604661)',
  cpu: `${GUIDE}, row "CPU": IAB New Ad Portfolio 2017, General Ad Requirements ("30% CPU load max ... per active ad")`,
  animation:
    `${GUIDE}, row "Animation": 15 s maximum, 2016 IAB draft (slideshare summary), restated by publisher specs ` +
    "(adspecs.carsguidemedia.com.au); the final 2017 text was not retrieved",
  border: `${GUIDE}, row "Border": IAB New Ad Portfolio 2017, "Defining ad space" (e.g. clearly defined borders)`,
  heavyAd: `${GUIDE}, row "Chrome Heavy Ad": https://chromestatus.com/feature/4800491902992384`,
  cors: `${GUIDE}, row "VAST CORS": IAB VAST 3.0 §2.1.5.2 (quoted in MailOnline/videojs-vast-vpaid #185)`,
  wrapper:
    `${GUIDE}, row "Wrapper depth": no IAB number; player limits IMA/Roku/Fire TV 4, JW Player 5, videojs-vast-vpaid 5 ` +
    "(vastlint.org/guides/vast-wrapper-chains; videojs-vast-vpaid #7)",
  renditions:
    `${GUIDE}, row "Video renditions": IAB Digital Video Ad Format Guidelines 2016 via a secondary summary ` +
    "(adopsbasics.blogspot.com/2017/08); primary PDF not retrieved",
  loudness:
    `${GUIDE}, row "Loudness": -24 LKFS (ATSC A/85, ±2 dB tolerance) and -23 LUFS ±0.5 (EBU R128) ` +
    "(help.advalidation.com loudness reference levels); IAB's own figure not found",
  mp4: `${GUIDE}, row "MP4": MOOV atom at start, GumGum CTV spec (gumgum.jira.com/wiki/spaces/GCDC/pages/4503666689)`,
  vastErrors: `${GUIDE}, row "VAST error codes": 401 file not found, 403 no supported MediaFile (docs.exoclick.com/pt/docs/vast-errors)`,
  noFigure: `${GUIDE}: no published figure; product default`,
  vastSpecs:
    "IAB VAST 2.0, 3.0, 4.0, 4.1, 4.2 and 4.3 (iabtechlab.com/standards/vast) and VMAP 1.0.1 (iabtechlab.com/standards/vmap) " +
    "texts and the IAB XSDs (github.com/InteractiveAdvertisingBureau/vast); every finding cites its rule id and section " +
    "(the rule catalogue: services/vast-analyzer/LINT-RULES.md)",
  googleAdsHtml5:
    "Google Ads HTML5 display ad requirements (support.google.com/google-ads, as transcribed at searchkings.com/display-ad-specs): " +
    "ZIP ≤ 150 KB, at most 40 files, file types CSS, JS, HTML, GIF, PNG, JPG, JPEG, SVG, images local, only Google web fonts, " +
    "ad.size meta tag in <head>; not in spec/iab-guidelines.md (no IAB figure for zips found)",
  cm360Html5:
    "Campaign Manager 360 HTML5 assets (support.google.com/campaignmanager/answer/4558694): \"The primary HTML file should have at " +
    "least one click tag\"; \"You can also add an image to show when a browser doesn't support HTML5\"",
  tcf:
    "IAB Europe TCF v2.2 Policies (iabeurope.eu/tcf-2-0, policies Chapter II-III: a vendor needs a legal basis — consent for " +
    "purpose 1, storing or accessing information on a device — before it stores or reads identifiers or processes personal data) " +
    "and GDPR art. 5(3) of the ePrivacy Directive 2002/58/EC (storing or reading information on a user's device needs consent)",
  gpp: "IAB Tech Lab GPP, US National Privacy section (usnat, sid 7): SaleOptOut, SharingOptOut, TargetedAdvertisingOptOut = 1 (opted out); GPC (Sec-GPC: 1, globalprivacycontrol.org) is an opt-out signal under the state laws the section carries",
  tcfMacros: "IAB Europe TCF v2.2 technical specification, \"Consent string and vendor list formats\", URL-based services: ${GDPR}, ${GDPR_CONSENT_XXXXX} with XXXXX the vendor's GVL id, ${ADDTL_CONSENT}; IAB Tech Lab GPP ${GPP_STRING_XXXXX}, ${GPP_SID}",
  minifiedSpec: "spec/creative-validation-api.md, Limits 5: \"minified is false when more than 5% saving is possible in any CSS or JavaScript file\"",
} as const;

/** The linter's rule groups (services/vast-analyzer/src/lint/types.ts LINT_GROUPS), each a test lint_<group>. */
const LINT_GROUPS: ReadonlyArray<readonly [group: string, what: string]> = [
  ["required_elements", "required-element"],
  ["value_formats", "value-format"],
  ["conditional_requirements", "version-requirement (UniversalAdId, AdServingId, Verification vendor …)"],
  ["deprecated_features", "deprecation"],
  ["macros", "macro"],
  ["urls", "URL"],
  ["wrappers", "wrapper"],
  ["pods", "ad pod"],
  ["icons", "icon"],
  ["companions", "companion"],
  ["tracking_events", "tracking-event"],
  ["interactive", "interactive-creative"],
  ["ctv", "CTV"],
  ["structure", "structure"],
  ["vmap", "VMAP"],
];

/** Creative sizes of the IAB 2017 fixed-size table, with [initial load KB, subload KB or null for "N/A"]. */
export const IAB_2017_WEIGHTS: Readonly<Record<string, readonly [initial: number, subload: number | null]>> = {
  "970x250": [250, 500], // Billboard
  "300x50": [50, 100], // Smartphone Banner
  "320x50": [50, 100], // Smartphone Banner
  "728x90": [150, 300], // Leaderboard
  "970x90": [200, 400], // Super Leaderboard / Pushdown
  "300x1050": [250, 500], // Portrait
  "160x600": [150, 300], // Skyscraper
  "300x250": [150, 300], // Medium Rectangle
  "120x60": [50, 100], // "20x60" in the transcription: 120x60
  "640x1136": [300, 600], // Mobile Phone Interstitial
  "750x1334": [300, 600], // Mobile Phone Interstitial
  "1080x1920": [300, 600], // Mobile Phone Interstitial
  "120x20": [5, null], // Feature Phone Small Banner
  "168x28": [5, null], // Feature Phone Medium Banner
  "216x36": [5, null], // Feature Phone Large Banner
};

function kbTable(pick: (w: readonly [number, number | null]) => number | null): LookupRule["table"] {
  const table: Record<string, { expected: Expected; expected_text: string }> = {};
  for (const [size, weights] of Object.entries(IAB_2017_WEIGHTS)) {
    const kb = pick(weights);
    if (kb !== null) table[size] = { expected: kb, expected_text: `at most ${kb} KB for ${size}` };
  }
  return table;
}

const rules: Rule[] = [
  // ---- ad tag ----
  {
    kind: "lookup",
    test: "initial_load",
    scope: "tag",
    basis: "iab",
    key: "creative_size",
    operator: "<=",
    table: kbTable((w) => w[0]),
    source: SOURCES.weight,
  },
  {
    kind: "lookup",
    test: "host_initiated_subload",
    scope: "tag",
    basis: "iab",
    key: "creative_size",
    operator: "<=",
    // Feature-phone banners have "N/A" for subload: no entry, so the test is left out for them.
    table: kbTable((w) => w[1]),
    source: SOURCES.weight,
  },
  {
    kind: "fixed",
    test: "network_requests",
    scope: "tag",
    basis: "iab",
    operator: "<=",
    expected: 10,
    expected_text: "at most 10 file requests during the initial load",
    source: SOURCES.requests,
  },
  {
    kind: "fixed",
    test: "cpu_usage",
    scope: "tag",
    basis: "iab",
    operator: "<=",
    expected: 30,
    expected_text: "at most 30% CPU",
    source: SOURCES.cpu,
  },
  {
    kind: "fixed",
    test: "cpu_average",
    scope: "tag",
    basis: "iab",
    operator: "<=",
    expected: 30,
    expected_text: "at most 30% CPU of a mid-tier phone's core",
    source: SOURCES.cpu,
    reason:
      "The IAB names no device; the figure is applied on the scanner's reference device (a mid-tier phone, Lighthouse BenchmarkIndex 1000), where most impressions are served, and to the average over the render — the text gives no window.",
  },
  {
    kind: "fixed",
    test: "animation_duration",
    scope: "tag",
    basis: "iab",
    operator: "<=",
    expected: 15_000,
    expected_text: "animation stops within 15 s",
    source: SOURCES.animation,
  },
  {
    kind: "fixed",
    test: "creative_border",
    scope: "tag",
    basis: "iab",
    operator: "==",
    expected: 1,
    expected_text: "the creative has a border",
    source: SOURCES.border,
    reason: "IAB asks that the ad be distinguishable from content and names a border as the example; the detector measures a border.",
  },
  {
    kind: "fixed",
    test: "heavy_ad_network",
    scope: "tag",
    basis: "industry",
    operator: "<=",
    expected: 4 * 1024 * 1024,
    expected_text: "at most 4 MB (4,194,304 bytes) of network data",
    source: SOURCES.heavyAd,
  },
  {
    kind: "fixed",
    test: "heavy_ad_cpu",
    scope: "tag",
    basis: "industry",
    operator: "<=",
    expected: 15_000,
    expected_text: "at most 15 s of main-thread CPU",
    source: SOURCES.heavyAd,
    reason:
      "Chrome's limits are 15 s in any 30 s window or 60 s in total; with only the scan's total CPU time available, 15 s is the binding limit for scans of up to 30 s and conservative beyond.",
  },
  {
    kind: "fixed",
    test: "heavy_ad_intervention",
    scope: "tag",
    basis: "industry",
    operator: "==",
    expected: 0,
    expected_text: "Chrome does not unload the ad",
    source: SOURCES.heavyAd,
    reason:
      "Chrome's own verdict on the creative in a frame it tags as an ad (limits: 4 MB of network, 15 s of CPU in any 30 s, 60 s in total), beside the two computed tests.",
  },
  {
    kind: "fixed",
    test: "blocked_by_adblock",
    scope: "tag",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "not blocked by ad blockers",
    source: SOURCES.noFigure,
    reason: "A tag that ad blockers block is never seen by their users; the check is binary, so no figure is needed.",
  },
  {
    kind: "fixed",
    test: "document_write",
    scope: "tag",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "does not use document.write()",
    source: SOURCES.noFigure,
    reason:
      "document.write() after the page has loaded wipes the document, and browsers block scripts it injects on slow connections; async ad slots need tags that do not use it.",
  },
  {
    kind: "fixed",
    test: "missing_assets",
    scope: "tag",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "no missing assets",
    source: SOURCES.noFigure,
    reason: "An asset that fails to load is a broken creative.",
  },
  {
    kind: "fixed",
    test: "ssl",
    scope: "tag",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "all requests use https",
    source: SOURCES.noFigure,
    reason: "Publishers serve https pages, where browsers block or flag http (mixed) content.",
  },
  {
    kind: "fixed",
    test: "dialogs",
    scope: "tag",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "opens no dialogs",
    source: SOURCES.noFigure,
    reason: "A dialog blocks the publisher's page until dismissed.",
  },

  // ---- Consent and privacy (privacy.*: the consent states of services/tag-scanner) ----
  {
    kind: "fixed",
    test: "no_identifiers_without_consent",
    scope: "tag",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "sets no cookie or storage key when the user refused",
    source: `${SOURCES.tcf}; ${SOURCES.gpp}`,
    reason: "Storing an identifier on the device needs consent (ePrivacy art. 5(3)); under a US opt-out an identifier serves only the sale/sharing/targeting refused. No figure is involved: any is a failure.",
  },
  {
    kind: "fixed",
    test: "no_tracking_without_consent",
    scope: "tag",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "makes no third-party tracking request when the user refused",
    source: `${SOURCES.tcf}; ${SOURCES.gpp}`,
    reason: "A tracking request sends the user's personal data (IP address, identifiers) to a vendor without a legal basis under tcf_denied, and serves a refused purpose under gpp_us_opt_out. Any is a failure.",
  },
  {
    kind: "fixed",
    test: "consent_macros_filled",
    scope: "tag",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "every consent macro is filled and names the vendor that reads it",
    source: SOURCES.tcfMacros,
    reason: "An unfilled macro leaves the vendor without any consent signal; a ${GDPR_CONSENT_nnn} naming another vendor's id hands it a signal for the wrong vendor.",
  },
  {
    kind: "fixed",
    test: "approved_vendors_only",
    scope: "tag",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "contacts only the request's allowed_domains",
    source: "The request's allowed_domains (the customer's own list: \"connection screening\")",
    reason: "The customer's list is the rule: any host outside it fails. Left out when no list is given.",
  },

  // ---- VAST document ----
  {
    kind: "fixed",
    test: "vast_version",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "a valid VAST version (2.0, 3.0, 4.0, 4.1, 4.2 or 4.3)",
    source: `${SOURCES.noFigure}; the versions are those IAB Tech Lab published (VAST 2.0 to 4.3)`,
    reason: "A player can only parse a document in a VAST version it knows; 1.x is obsolete.",
  },
  {
    kind: "fixed",
    test: "wrapper_redirects",
    scope: "vast_xml",
    basis: "industry",
    operator: "<=",
    expected: 4,
    expected_text: "at most 4 wrapper redirects",
    source: SOURCES.wrapper,
    reason: "IAB gives no number; 4 is the lowest player limit cited (IMA, Roku, Fire TV), so a chain that passes plays in all of them.",
  },
  {
    kind: "fixed",
    test: "wrapper_chain",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "the wrapper chain ends in an inline ad",
    source: `${SOURCES.noFigure}; a broken chain is VAST error 301 (wrapper timeout) or 303 (no ad) (${GUIDE}, row "VAST error codes": docs.exoclick.com/pt/docs/vast-errors)`,
    reason: "A player that cannot follow a wrapper to an inline ad shows nothing; the message names the hop that failed and why.",
  },
  {
    kind: "fixed",
    test: "cors",
    scope: "vast_xml",
    basis: "iab",
    operator: "==",
    expected: 1,
    expected_text: "CORS headers set as VAST requires",
    source: SOURCES.cors,
  },
  {
    kind: "fixed",
    test: "xml_content_type",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "served as text/xml or application/xml",
    source: SOURCES.noFigure,
    reason: "Players fetch VAST with XHR/fetch and parse it as XML; other content types can make responseXML empty.",
  },
  {
    kind: "fixed",
    test: "xml_http_code",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 200,
    expected_text: "HTTP 200",
    source: SOURCES.noFigure,
    reason: "The document is fetched with a plain GET after redirects; anything but 200 means no ad.",
  },
  {
    kind: "fixed",
    test: "impression_present",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "at least one impression pixel",
    source: SOURCES.noFigure,
    reason: "Without an <Impression> URL the ad's delivery cannot be counted (VAST makes <Impression> mandatory in an InLine ad).",
  },
  {
    kind: "fixed",
    test: "ssl",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "all URLs use https",
    source: SOURCES.noFigure,
    reason: "Players on https pages block http media and trackers (mixed content).",
  },
  {
    kind: "fixed",
    test: "ad_system",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "names its ad system",
    source: SOURCES.noFigure,
    reason: "<AdSystem> is a required VAST element; its absence points at a malformed document.",
  },
  {
    kind: "fixed",
    test: "creative_count",
    scope: "vast_xml",
    basis: "product_default",
    operator: ">=",
    expected: 1,
    expected_text: "at least 1 creative",
    source: SOURCES.noFigure,
    reason: "An ad without a creative has nothing to play.",
  },

  {
    kind: "fixed",
    test: "playable_creatives",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "every creative has something a player can play",
    source: `${SOURCES.noFigure}; a creative without one ends in VAST error 401 (file not found), 403 (no supported MediaFile) or 405 (cannot display) (${SOURCES.vastErrors})`,
    reason:
      "An ad a player cannot play must not pass: counting only the tests that could run would score a Linear without a MediaFile, or one whose only file is a playlist, 404 or VPAID code, as all passed. Progressive files are what every VAST player plays; HLS/DASH manifests and VPAID need players that support them (VPAID is deprecated since VAST 4.1).",
  },

  // ---- VAST depth: schema and required elements per version ----
  {
    kind: "fixed",
    test: "xml_schema",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "valid against the IAB XSD of its version",
    source: `${SOURCES.noFigure}; the IAB XSDs (github.com/InteractiveAdvertisingBureau/vast: vast_2.0.1, vast3_draft, vast4, vast_4.1, vast_4.2)`,
    reason: "IAB publishes a schema per VAST version; a document it rejects may be refused by strict players and SSAI servers. Each finding names its line.",
  },
  {
    kind: "fixed",
    test: "universal_ad_id",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "every creative has a UniversalAdId (VAST 4.x)",
    source: `${SOURCES.noFigure}; IAB VAST 4.0 and later make <UniversalAdId> a required element of <Creative> (the IAB XSDs, vast4.xsd and later)`,
    reason: "The Universal Ad ID identifies the creative across systems (Ad-ID, clearcast); VAST 4 requires it, and buyers and SSAI servers key on it.",
  },
  {
    kind: "fixed",
    test: "error_url",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "every inline ad has an <Error> URL",
    source: `${SOURCES.noFigure}; the error codes the player reports through it are VAST's (${GUIDE}, row "VAST error codes": docs.exoclick.com/pt/docs/vast-errors)`,
    reason: "Without an <Error> URL an ad that fails to play fails silently: the ad server never learns why.",
  },
  {
    kind: "fixed",
    test: "tracking_events",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "start, firstQuartile, midpoint, thirdQuartile and complete tracked",
    source: SOURCES.noFigure,
    reason: "Quartile events are how a video ad's delivery and completion rate are measured and billed; an ad that does not track them cannot be verified.",
  },
  {
    kind: "fixed",
    test: "vpaid",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "no VPAID (deprecated since VAST 4.1)",
    source: `${SOURCES.noFigure}; IAB VAST 4.1 deprecates VPAID in favour of SIMID and OMID`,
    reason: "Many players (CTV, mobile apps, IMA without VPAID enabled) no longer run VPAID; interactivity belongs in SIMID, measurement in OMID AdVerifications.",
  },
  {
    kind: "fixed",
    test: "mezzanine",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "a Mezzanine file for CTV / ad stitching (VAST 4.x)",
    source: `${SOURCES.noFigure}; IAB VAST 4.0 introduced <Mezzanine> for ad-stitching (SSAI) servers`,
    reason: "CTV and server-side ad insertion transcode from the mezzanine; without it they re-encode a lossy rendition or refuse the ad.",
  },
  {
    kind: "fixed",
    test: "unexpanded_macros",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "no URL with a macro no player fills",
    source: `${SOURCES.noFigure}; the player macros are IAB VAST 4's macro list`,
    reason: "An ad-server macro that reaches the player is requested as written: the pixel or click is lost, mis-attributed or refused.",
  },

  {
    kind: "fixed",
    test: "tracker_urls",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "no tracker URL with a fault",
    source: `${SOURCES.noFigure}; mixed content: W3C Mixed Content (players on https pages block http requests); reserved names: RFC 2606, RFC 6761; private addresses: RFC 1918`,
    reason:
      "A tracker whose host does not resolve, refuses the connection, fails TLS, lives on a test or staging host, is http on an https ad or carries a macro no player fills is a beacon that never counts: the delivery, quartiles or clicks it should report are lost. Hosts are checked without sending the request, so no tracker fires.",
  },

  {
    kind: "fixed",
    test: "om_verifications",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "every verification usable by an OM SDK",
    source: `${SOURCES.noFigure}; the elements: IAB VAST 4.1+ <AdVerifications> (JavaScriptResource, VerificationParameters); IAB Open Measurement SDK (HTTPS script resources); WHATWG MIME Sniffing (JavaScript MIME types)`,
    reason:
      "A verification script an OM SDK cannot load (not https, unreachable, not served as JavaScript) or that gets no VerificationParameters measures nothing: the buyer's viewability and verification vendor reports the impression as unmeasured.",
  },

  {
    kind: "fixed",
    test: "simid_handshake",
    scope: "vast_xml",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "every SIMID file completes the handshake without an error",
    source: `${SOURCES.noFigure}; the protocol: IAB SIMID 1.1 §6.1 (ad loading), §8.4 (createSession), §4.3.7 SIMID:Player:init, §4.3.10 SIMID:Player:startCreative, §4.4.4 SIMID:Creative:fatalError; the time-outs are the player's (the spec leaves them to it): ours 5 s, 3 s, 3 s`,
    reason:
      "A SIMID creative that does not create its session, resolve Player:init or resolve startCreative in time is hidden by the player, which plays the media alone and reports VAST errors 1212/1213: the interactive layer the buyer paid for never shows. A fatalError ends it outright.",
  },

  // ---- VAST lint: the rule groups of the linter, each failing on any error finding of its rules ----
  ...LINT_GROUPS.map(([group, what]): Rule => ({
    kind: "fixed",
    test: `lint_${group}`,
    scope: "vast_xml",
    basis: "iab",
    operator: "==",
    expected: 0,
    expected_text: `no error finding of the ${what} rules`,
    source: SOURCES.vastSpecs,
  })),

  // ---- v3 zips (with the ad tag rules above on the render) ----
  {
    kind: "fixed",
    test: "meta_ad_size",
    scope: "zip",
    basis: "industry",
    operator: "==",
    expected: 1,
    expected_text: "an ad.size meta tag matching the rendered size",
    source: SOURCES.googleAdsHtml5,
    reason: "Ad servers size the slot from ad.size; a creative that renders at another size is cut off or leaves a gap.",
  },
  {
    kind: "fixed",
    test: "click_tag",
    scope: "zip",
    basis: "industry",
    operator: "==",
    expected: 1,
    expected_text: "a click tag, declared and used",
    source: SOURCES.cm360Html5,
    reason: "The ad server fills the click tag with its tracked click URL; a creative that declares none, or never reads it, loses the click.",
  },
  {
    kind: "fixed",
    test: "minified",
    scope: "zip",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "CSS and JavaScript minified (no file shrinks by more than 5 %)",
    source: SOURCES.minifiedSpec,
    reason: "The API itself defines minified by the 5 % saving; unminified code is weight every impression pays for.",
  },
  {
    kind: "fixed",
    test: "external_assets",
    scope: "zip",
    basis: "industry",
    operator: "==",
    expected: 0,
    expected_text: "no assets from outside the zip, except Google web fonts and Google-hosted ad libraries",
    source: SOURCES.googleAdsHtml5,
    reason: "An asset outside the zip is a dependency the ad server does not control (and weight the IAB budgets do not see). The allowed hosts are fonts.googleapis.com, fonts.gstatic.com, s0.2mdn.net and tpc.googlesyndication.com.",
  },
  {
    kind: "fixed",
    test: "zip_file_count",
    scope: "zip",
    basis: "industry",
    operator: "<=",
    expected: 40,
    expected_text: "at most 40 files",
    source: SOURCES.googleAdsHtml5,
    reason: "Google Ads refuses zips of more than 40 files (Campaign Manager 360 allows 100); the stricter figure passes both.",
  },
  {
    kind: "fixed",
    test: "allowed_file_types",
    scope: "zip",
    basis: "industry",
    operator: "==",
    expected: 0,
    expected_text: "only HTML, CSS, JS, GIF, PNG, JPG, JPEG and SVG files",
    source: SOURCES.googleAdsHtml5,
  },
  {
    kind: "fixed",
    test: "zip_size",
    scope: "zip",
    basis: "industry",
    operator: "<=",
    expected: 150,
    expected_text: "at most 150 KB zipped",
    source: SOURCES.googleAdsHtml5,
  },
  {
    kind: "lookup",
    test: "unzipped_size",
    scope: "zip",
    basis: "iab",
    key: "creative_size",
    operator: "<=",
    table: Object.fromEntries(
      Object.entries(IAB_2017_WEIGHTS).map(([size, [initial, sub]]) => [
        size,
        { expected: initial + (sub ?? 0), expected_text: `at most ${initial + (sub ?? 0)} KB unzipped for ${size} (initial load + subload)` },
      ]),
    ),
    source: SOURCES.weight,
    reason: "Everything a zip holds is what its ad may load; IAB's initial load plus subload for the size is the most an ad of that size may load in all.",
  },
  {
    kind: "fixed",
    test: "image_optimization",
    scope: "zip",
    basis: "product_default",
    operator: "==",
    expected: 0,
    expected_text: "no PNG/JPEG image shrinks by more than 10 % re-encoded at the same quality",
    source: SOURCES.noFigure,
    reason: "Image bytes are most of a banner's weight; 10 % is well above what re-encoding an optimised image saves (encoder differences), so only images saved without optimisation fail.",
  },
  {
    kind: "fixed",
    test: "backup_ad",
    scope: "zip",
    basis: "industry",
    operator: "==",
    expected: 1,
    expected_text: "a backup image of the ad's size",
    source: SOURCES.cm360Html5,
    reason: "Where the HTML5 creative cannot run (old browsers, some apps, email), ad servers show a static backup image of the same size; without one the slot stays empty.",
  },

  // ---- VAST media files ----
  {
    kind: "fixed",
    test: "playable",
    scope: "vast_mediafile",
    basis: "product_default",
    operator: "==",
    expected: 1,
    expected_text: "downloads and decodes as audio/video",
    source: `${SOURCES.noFigure}; a file that does not is VAST error 401 (file not found) or 405 (cannot display) (${SOURCES.vastErrors})`,
    reason: "A media file that does not download, or is not audio/video (a playlist, an HTML page), cannot play; its other tests are then left out, this one says why.",
  },
  {
    kind: "fixed",
    test: "http_code",
    scope: "vast_mediafile",
    basis: "product_default",
    operator: "==",
    expected: 200,
    expected_text: "HTTP 200",
    source: `${SOURCES.noFigure}; a failed download is VAST error 401 (${SOURCES.vastErrors})`,
    reason: "A media file that does not download cannot play.",
  },
  {
    kind: "fixed",
    test: "video_bit_rate",
    scope: "vast_mediafile",
    basis: "iab",
    operator: "><",
    expected: [500, 2500],
    expected_text: "between 500 and 2500 kbps",
    source: SOURCES.renditions,
    reason:
      "The guidelines give 500–700, 700–1500 and 1500–2500 kbps tiers; the summary does not say which rendition size belongs to which tier, so the envelope of the tiers is used.",
  },
  {
    kind: "lookup",
    test: "audio_bit_rate",
    scope: "vast_mediafile",
    basis: "iab",
    key: "audio_profile",
    operator: "><",
    table: {
      "aac:LC": { expected: [128, 192], expected_text: "between 128 and 192 kbps for AAC-LC" },
      "aac:HE-AAC": { expected: [64, 128], expected_text: "between 64 and 128 kbps for HE-AACv1" },
    },
    source: SOURCES.renditions,
  },
  {
    kind: "fixed",
    test: "moov_atom",
    scope: "vast_mediafile",
    basis: "industry",
    operator: "==",
    expected: 1,
    expected_text: "moov atom at the beginning of the file",
    source: SOURCES.mp4,
  },
  {
    kind: "fixed",
    test: "loudness",
    scope: "vast_mediafile",
    basis: "industry",
    operator: "><",
    expected: [-26, -22],
    expected_text: "between -26 and -22 LUFS (ATSC A/85 -24 LKFS ±2; contains EBU R128 -23 ±0.5)",
    source: SOURCES.loudness,
    reason:
      "IAB publishes no loudness figure. Ads run on US (ATSC A/85, -24 LKFS ±2) and European (EBU R128, -23 LUFS ±0.5) " +
      "inventory alike; the ATSC window contains the EBU one, so a file mastered to either standard passes.",
  },
  {
    kind: "fixed",
    test: "audio_sample_rate",
    scope: "vast_mediafile",
    basis: "product_default",
    operator: "><",
    expected: [44_100, 48_000],
    expected_text: "between 44.1 and 48 kHz",
    source: SOURCES.noFigure,
    reason: "44.1 and 48 kHz are the rates video encoders and players handle everywhere; lower rates sound degraded.",
  },
  {
    kind: "fixed",
    test: "audio_channels",
    scope: "vast_mediafile",
    basis: "product_default",
    operator: "><",
    expected: [1, 2],
    expected_text: "mono or stereo",
    source: SOURCES.noFigure,
    reason: "Web and CTV players play mono and stereo alike; surround tracks are down-mixed unpredictably.",
  },
  {
    kind: "fixed",
    test: "duration_match",
    scope: "vast_mediafile",
    basis: "product_default",
    operator: "<=",
    expected: 1,
    expected_text: "measured duration within 1 s of the declared <Duration>",
    source: SOURCES.noFigure,
    reason: "Players compare the two (VAST error 202, unexpected duration); 1 s absorbs encoder padding and rounding of HH:MM:SS.",
  },
];

// ---- raw files (scanVideo, scanImage, scanAudio): US loudness figures (ATSC A/85); spec set 2 has EBU R128's.
rules.push(...videoFileRules(ATSC_A85), ...audioFileRules(ATSC_A85), ...imageFileRules(kbTable((w) => w[0])));

const omitted: Omission[] = [
  ...["photosensitivity", "motion_pause", "image_alt", "exit_name", "text_contrast"].map((test) => ({
    test, scope: "tag" as const, reason: "A WCAG 2.2 success criterion, not an IAB guideline: judged in spec set 3 (WCAG 2.2 accessibility).",
  })),
  { test: "captions", scope: "vast_xml", reason: "WCAG 2.2 SC 1.2.2, not an IAB requirement (VAST 4.1 makes caption files optional; the linter's CTV advice covers it): judged in spec set 3." },
  { test: "photosensitivity", scope: "vast_mediafile", reason: "WCAG 2.2 SC 2.3.1, not an IAB guideline: judged in spec set 3 (WCAG 2.2 accessibility)." },
  ...["captions", "photosensitivity"].map((test) => ({
    test, scope: "video_file" as const, reason: "A WCAG 2.2 success criterion (1.2.2, 2.3.1), not an IAB guideline: judged in spec set 3 (WCAG 2.2 accessibility).",
  })),
  { test: "time_to_visual_start", scope: "tag", reason: `No IAB figure for time to visual start (${GUIDE}: "Not found anywhere").` },
  {
    test: "cpu_peak",
    scope: "tag",
    reason:
      "No published per-second CPU limit found: IAB 2017 gives 30% per active ad (applied to cpu_average), Chrome's Heavy Ad limit is 15 s in any 30 s window (heavy_ad_cpu); no High/Medium/Low bands with a citable source either.",
  },
  { test: "memory", scope: "tag", reason: `No IAB figure for memory (${GUIDE}: "Not found anywhere").` },
  { test: "iframes", scope: "tag", reason: `No IAB figure for the iframe count (${GUIDE}: "Not found anywhere").` },
  { test: "measurement_pixels", scope: "tag", reason: "Informational: the guidelines set no limit on measurement pixels." },
  {
    test: "console_errors",
    scope: "tag",
    reason: "Informational: no published figure, and third-party tags log harmless errors too often for a pass/fail.",
  },
  { test: "xml_load_time", scope: "vast_xml", reason: `No IAB figure for VAST XML load time (${GUIDE}: "Not found anywhere").` },
  { test: "xml_file_size", scope: "vast_xml", reason: `No IAB figure for VAST XML size (${GUIDE}: "Not found anywhere").` },
  {
    test: "file_size",
    scope: "vast_mediafile",
    reason: `The IAB video guidelines give average file sizes (1.5–2 / 3–4 / 6–8 MB), not limits (${GUIDE}, row "Video renditions").`,
  },
];

export const iabSpecSet: SpecSet = {
  id: 0,
  name: "IAB guidelines",
  description:
    "IAB New Ad Portfolio 2017 display figures, IAB VAST and video guidelines, and the Chrome Heavy Ad limits, with product defaults (marked) where IAB publishes no figure. Raw video and audio files are judged by US loudness figures (ATSC A/85); spec set 2 is the same set with EBU R128's.",
  notes: [
    "1 KB = 1000 bytes: the IAB table writes kB (SI prefix), and the decimal reading is the stricter one.",
    "Creative size = declared_dimensions if set (non-zero), else the measured dimensions. Sizes not in the IAB 2017 table have no IAB weight figure: initial_load and host_initiated_subload are left out for them rather than judged against another size's figure.",
    "Load phases: initial_load and host_initiated_subload are taken from network.load_size exactly as the tag scanner measures them. Its boundary (services/tag-scanner/src/fields/load-size.ts) is the IAB 2017 one: a request started before the top document's window load event is initial load, later ones are host-initiated subload, and everything is initial load when load never fires; the tag's own markup counts as initial load. (The product we mirror cuts at DOMContentLoaded; IAB 2015 at 1 s after it.) network_requests takes its split from the same measurement: the latest-started responses that add up to host_initiated_subload are the subload, so it follows whatever boundary the scanner uses.",
    "Boolean tests carry actual 1 (true) or 0 (false) and pass with operator == against 1 or 0.",
    "actual = -1 with a message means unbounded (e.g. still animating at the scan's time-out); it fails any upper bound.",
    "Every result has a message: what was measured against what was expected, and for a failure what the test found (which creative or media file cannot play, and why). A test that could not be evaluated (result error) says why: a value the scanner did not measure (listed in the media file's not_measured, e.g. loudness after an ffmpeg time-out), or a media file the scan never probed. Errors count neither passed nor failed; they never stand in for a failure of the ad.",
    "A media file that is not playable media (HTTP error, playlist, HTML) fails http_code and/or playable with the prober's reason; its media tests (bit rates, loudness, moov atom, ...) are then left out rather than reported as errors. Whether the ad as a whole can play is playable_creatives.",
  ],
  rules,
  omitted,
};
