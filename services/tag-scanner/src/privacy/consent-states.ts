import { GppModel } from "@iabgpp/cmpapi";
import { GVL, TCModel, TCString } from "@iabtechlabtcf/core";

/** The consent states a scan renders the creative under (proto Privacy: what each sends). */
export const CONSENT_STATES = ["no_cmp", "tcf_denied", "tcf_granted", "gpp_us_opt_out"] as const;
export type ConsentStateName = (typeof CONSENT_STATES)[number];
/** The states rendered by the consent runs (no_cmp is the full scan's own run). */
export type ExtraStateName = Exclude<ConsentStateName, "no_cmp">;
export const EXTRA_STATES: readonly ExtraStateName[] = ["tcf_denied", "tcf_granted", "gpp_us_opt_out"];
/** The states in which the user refused: what the creative does there is what a privacy officer judges. */
export const REFUSED_STATES: ReadonlySet<string> = new Set(["tcf_denied", "gpp_us_opt_out"]);

/**
 * Our CMP id in the TC string. We are no registered CMP (the TCF registers CMPs, ids start at 2): 2 is the lowest the
 * library accepts; a vendor that checks CMP ids against the registry will see an unregistered one.
 */
export const CMP_ID = 2;
/** TC strings say consent for vendor ids 1..GRANTED_MAX_VENDOR in tcf_granted: every GVL id in use today (~1 400). */
export const GRANTED_MAX_VENDOR = 1500;
/** GPP section id of the US national section (usnat). */
export const USNAT_SID = 7;

/** What the CMP in the host page answers in one state (gatherers/page/consent-cmp.js reads it). */
export interface CmpConfig {
  /** __tcfapi present, answering this TC string with gdprApplies true; null = no TCF API. */
  tcString: string | null;
  /** __gpp present with this GPP string and its applicable section ids; null = no GPP API. */
  gpp: { gppString: string; sids: number[] } | null;
  /** __uspapi present answering this US privacy string; null = none. */
  uspString: string | null;
  /** navigator.globalPrivacyControl true (and Sec-GPC: 1 on requests, set by the run). */
  gpc: boolean;
  cmpId: number;
}

export interface ConsentState {
  name: ExtraStateName;
  cmp: CmpConfig;
  /** Extra request headers in this state. */
  headers: Record<string, string>;
  /** Values the ad server would fill the consent macros of the creative's markup with (macro name → value). */
  macros: (name: string) => string | undefined;
  /** What the state signals, in words and strings, for the report (ConsentStateSummary.signal). */
  signal: string;
}

/**
 * A Global Vendor List of our own making, with ids 1..GRANTED_MAX_VENDOR each declaring every purpose, so that the
 * library (which will not encode without a GVL, and keeps only consents a vendor declared) can write "every purpose
 * and every vendor" without the real list, which is fetched from the internet. Version and policy are today's TCF v2.2
 * (policy version 5). It never leaves this process: only the TC string does.
 */
function syntheticGvl(): GVL {
  const purposeIds = Array.from({ length: 11 }, (_, i) => i + 1);
  const named = (ids: number[]) => Object.fromEntries(ids.map((id) => [id, { id, name: `purpose ${id}`, description: "", illustrations: [] }]));
  const vendors = Object.fromEntries(Array.from({ length: GRANTED_MAX_VENDOR }, (_, i) => {
    const id = i + 1;
    return [id, {
      id, name: `vendor ${id}`, purposes: purposeIds, legIntPurposes: [], flexiblePurposes: [], specialPurposes: [1, 2], features: [1, 2, 3],
      specialFeatures: [1, 2], policyUrl: "", cookieMaxAgeSeconds: null, usesCookies: true, usesNonCookieAccess: false,
    }];
  }));
  return new GVL({
    gvlSpecificationVersion: 3, vendorListVersion: 100, tcfPolicyVersion: 5, lastUpdated: "2026-01-01T00:00:00Z",
    purposes: named(purposeIds), specialPurposes: named([1, 2, 3]), features: named([1, 2, 3]), specialFeatures: named([1, 2]),
    stacks: {}, dataCategories: {}, vendors,
  } as unknown as ConstructorParameters<typeof GVL>[0]);
}

function tcString(granted: boolean): string {
  const m = new TCModel(syntheticGvl());
  m.cmpId = CMP_ID;
  m.cmpVersion = 1;
  m.consentScreen = 1;
  m.publisherCountryCode = "DE";
  m.isServiceSpecific = true;
  if (granted) {
    m.setAllPurposeConsents();
    m.setAllSpecialFeatureOptins();
    m.setAllVendorConsents();
  }
  return TCString.encode(m);
}

/** US national section: notices given, sale, sharing and targeted advertising opted out, GPC segment on. */
function usNatOptOut(): string {
  const g = new GppModel();
  const set = (f: string, v: unknown) => g.setFieldValue("usnat", f, v);
  for (const f of ["SharingNotice", "SaleOptOutNotice", "SharingOptOutNotice", "TargetedAdvertisingOptOutNotice"]) set(f, 1);
  for (const f of ["SaleOptOut", "SharingOptOut", "TargetedAdvertisingOptOut"]) set(f, 1);
  set("MspaCoveredTransaction", 2);
  set("GpcSegmentIncluded", true);
  set("Gpc", true);
  return g.encode();
}

/** The consent macros (IAB TCF "Consent string and vendor list formats", GPP "Consent macros"). */
export const MACRO_RE = /\$\{(GDPR|GDPR_CONSENT_(\d{1,5})|ADDTL_CONSENT|GPP_STRING_(\d{1,5})|GPP_SID|US_PRIVACY)\}/g;
/** The same, URL-encoded (%24%7B…%7D), as they reach the network when a URL was built with encodeURIComponent. */
export const ENCODED_MACRO_RE = /%24%7B(GDPR|GDPR_CONSENT_(\d{1,5})|ADDTL_CONSENT|GPP_STRING_(\d{1,5})|GPP_SID|US_PRIVACY)%7D/gi;

let built: readonly ConsentState[] | undefined;

/** The three extra states (built once: encoding 1 500 vendors takes a few ms). */
export function consentStates(): readonly ConsentState[] {
  if (built) return built;
  const denied = tcString(false);
  const granted = tcString(true);
  const gpp = usNatOptOut();
  const tcf = (tc: string) => (name: string) => {
    if (name === "GDPR") return "1";
    if (name.startsWith("GDPR_CONSENT_")) return tc;
    if (name === "ADDTL_CONSENT") return "2~~dv.";
    if (name === "GPP_SID") return "-1";
    return undefined;
  };
  built = [
    { name: "tcf_denied", cmp: { tcString: denied, gpp: null, uspString: null, gpc: false, cmpId: CMP_ID }, headers: {}, macros: tcf(denied), signal: `TCF v2.2 TC string ${denied} (gdprApplies, nothing consented)` },
    { name: "tcf_granted", cmp: { tcString: granted, gpp: null, uspString: null, gpc: false, cmpId: CMP_ID }, headers: {}, macros: tcf(granted), signal: `TCF v2.2 TC string ${granted.slice(0, 60)}… (gdprApplies, every purpose and vendor 1..${GRANTED_MAX_VENDOR})` },
    {
      name: "gpp_us_opt_out", cmp: { tcString: null, gpp: { gppString: gpp, sids: [USNAT_SID] }, uspString: "1YYN", gpc: true, cmpId: CMP_ID },
      headers: { "Sec-GPC": "1" },
      macros: (name) => (name === "GDPR" ? "0" : name.startsWith("GPP_STRING_") ? gpp : name === "GPP_SID" ? String(USNAT_SID) : name === "US_PRIVACY" ? "1YYN" : name.startsWith("GDPR_CONSENT_") ? "" : undefined),
      signal: `GPP ${gpp} (usnat, sid ${USNAT_SID}: sale, sharing, targeted ads opted out), US privacy 1YYN, Sec-GPC: 1, navigator.globalPrivacyControl true`,
    },
  ];
  return built;
}

/** The markup with its consent macros filled as the ad server would in `state` (unknown macros are left). */
export function fillMacros(markup: string, state: ConsentState): string {
  return markup.replace(MACRO_RE, (m, name: string) => state.macros(name) ?? m);
}
