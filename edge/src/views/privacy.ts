import type { Network, Privacy, Vendor } from "@cva/contracts";
import { arr, bool, int, networkResponseSchema, networkSchema, networkView, obj, orEmpty, str, type JsonSchema } from "./shared.ts";

// v3 (tag and zip): what the creative does under each consent state, and whom it talks to (services/tag-scanner
// src/privacy/). The v2 shapes stay the spec's: network responses get `vendor` in v3 only.

export const vendorSchema = obj(
  {
    name: str("the company the host belongs to"),
    category: str("ad_server, ad_exchange, measurement, verification, analytics, data_platform, social, cdn or creative_platform"),
    gvl_id: int("its IAB TCF Global Vendor List id; 0 when it has none or it is not known"),
  },
  { description: "from the scanner's curated vendor list (our own data)" },
);
const vendorView = (v: Vendor | undefined) => (v ? { name: v.name, category: v.category, gvl_id: v.gvlId } : {});

const responses = networkResponseSchema as { properties: Record<string, JsonSchema>; required: string[] };
const net = networkSchema as { properties: Record<string, JsonSchema> };
/** The network of a v3 report: each response with its vendor ({} for first-party and unknown hosts). */
export const networkV3Schema = obj({
  ...net.properties,
  responses: arr(obj({ ...responses.properties, vendor: orEmpty(vendorSchema, "who the request's host belongs to; {} for the page's own hosts and hosts the list does not know") })),
});
export function networkV3View(n: Network | undefined) {
  const v = networkView(n);
  return { ...v, responses: v.responses.map((r, i) => ({ ...r, vendor: vendorView(n?.responses[i]?.vendor) })) };
}

const STATES = "no_cmp (the scan's own run: no CMP, no signal — every other field of the report is this run's), tcf_denied (TCF v2.2 CMP: GDPR applies, nothing consented), tcf_granted (every purpose and vendor consented), gpp_us_opt_out (GPP US national section: sale, sharing and targeted advertising opted out; Sec-GPC: 1 and navigator.globalPrivacyControl)";

export const privacySchema = obj(
  {
    states: arr(
      obj({
        state: str(STATES),
        cookies: arr(obj({ name: str(), domain: str() }), "cookies present at the end of the state's run"),
        storage_keys: arr(str(), "localStorage keys the creative wrote"),
        third_party_domains: arr(str(), "registrable domains contacted other than the page's own"),
        requests: int("count of the creative's requests"),
        pixels: int("count of measurement pixels among them"),
        signal: str("what the state sent: TC string, GPP string, US privacy string, GPC; empty for no_cmp"),
        error: str("set when the state's run failed or was cut short by the scan's deadline; the summary holds what was seen"),
        watched_ms: int("milliseconds the run watched the creative (each consent run watches as long as the no_cmp render did; a derived state has no_cmp's)"),
        derived_from: str("\"no_cmp\" when the state was not rendered: nothing that differs between it and no_cmp (its CMP, macros, headers) could reach the creative, so its summary is the no_cmp run's judged under this state's consent; empty when rendered"),
        derived_reason: str("why the state could be derived (with derived_from)"),
        rendered_because: str("why the state was rendered: the consent signals the creative looked for, its consent macros, or the servers that receive the state's Sec-GPC header; empty for no_cmp and derived states"),
      }),
      "no_cmp, then each consent state (rendered, or derived from no_cmp); empty when the consent states were not made",
    ),
    reads_consent: bool("the creative (or anything it loaded) called __tcfapi, __gpp or __uspapi, directly or by postMessage"),
    consent_calls: arr(obj({
      state: str(), api: str("__tcfapi, __gpp or __uspapi"), command: str("e.g. addEventListener, getTCData, ping, getUSPData"),
      count: int(), via_post_message: bool("made from another frame through the locator frame"),
    })),
    consent_macros: arr(
      obj({
        macro: str("as written, e.g. ${GDPR_CONSENT_755}"),
        host: str("host of the URL it is in; empty outside any URL"),
        found_in: str("markup (filled by the scan in the consent states, as the ad server would) or request (reached the network unfilled in a consent state)"),
        filled: bool(),
        vendor_id: int("nnn of ${GDPR_CONSENT_nnn} or ${GPP_STRING_nnn}; 0 otherwise"),
        host_vendor: orEmpty(vendorSchema, "the vendor of host; {} when not known"),
        vendor_matches: bool("${GDPR_CONSENT_nnn}: false when the host's vendor has a known GVL id other than nnn"),
      }),
      "every consent macro found (consent_macros_filled)",
    ),
    violations: arr(
      obj({
        state: str("tcf_denied or gpp_us_opt_out"),
        kind: str("cookie, storage or tracking_request (a measurement pixel, or a request to a measurement, analytics, verification, data-platform or social vendor)"),
        what: str("cookie name, storage key or request URL"),
        domain: str("cookie domain or request host; empty for storage"),
      }),
      "identifiers set and tracking requests made while the user had refused",
    ),
    allowed_domains: arr(str(), "the request's allowed_domains (or the workspace's stored list when the request has none); empty when there is none"),
    unapproved_domains: arr(str(), "hosts contacted in any state outside allowed_domains (approved_vendors_only); empty without a list"),
    consent_signals: arr(str(), "what the no_cmp run saw the creative (or anything it loaded) look for: __tcfapi, __gpp, __uspapi, __cmp, their __…Locator frames and __…Call messages (named in a script it ran, or posted), globalPrivacyControl (named or read), tamper (the sensor taken apart), unscanned (a script not read in time); decides which states are rendered"),
  },
  { description: "what the creative does with and without the user's consent, and whom it talks to" },
);

export function privacyView(p: Privacy | undefined) {
  return {
    states: (p?.states ?? []).map((s) => ({
      state: s.state, cookies: s.cookies.map((c) => ({ name: c.name, domain: c.domain })), storage_keys: [...s.storageKeys],
      third_party_domains: [...s.thirdPartyDomains], requests: s.requests, pixels: s.pixels, signal: s.signal, error: s.error,
      watched_ms: Number(s.watchedMs), derived_from: s.derivedFrom, derived_reason: s.derivedReason, rendered_because: s.renderedBecause,
    })),
    reads_consent: p?.readsConsent ?? false,
    consent_calls: (p?.consentCalls ?? []).map((c) => ({ state: c.state, api: c.api, command: c.command, count: c.count, via_post_message: c.viaPostMessage })),
    consent_macros: (p?.consentMacros ?? []).map((m) => ({
      macro: m.macro, host: m.host, found_in: m.foundIn, filled: m.filled, vendor_id: m.vendorId, host_vendor: vendorView(m.hostVendor),
      vendor_matches: m.vendorMatches,
    })),
    violations: (p?.violations ?? []).map((v) => ({ state: v.state, kind: v.kind, what: v.what, domain: v.domain })),
    allowed_domains: [...(p?.allowedDomains ?? [])],
    unapproved_domains: [...(p?.unapprovedDomains ?? [])],
    consent_signals: [...(p?.consentSignals ?? [])],
  };
}
