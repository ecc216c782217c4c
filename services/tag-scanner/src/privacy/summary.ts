import { isPixel } from "../fields/is-pixel.ts";
import type { RequestRecord } from "../gatherers/network.ts";
import type { StorageArtifact } from "../gatherers/storage.ts";
import type { SyntheticSite } from "../synthetic-origin.ts";
import type { ConsentCall } from "./artifact.ts";
import { ENCODED_MACRO_RE, MACRO_RE, REFUSED_STATES, consentStates } from "./consent-states.ts";
import { TRACKING_CATEGORIES, hostOf, registrableDomain, vendorOfHost, type VendorDb, type VendorInfo } from "./vendors.ts";

/** One state's inputs: the creative's requests (ours left out), what it stored, the consent calls it made. */
export interface StateInput {
  state: string;
  site: SyntheticSite;
  requests: RequestRecord[];
  storage: StorageArtifact;
  calls: ConsentCall[];
  watchedMs: number;
  error?: string;
  /** "no_cmp" when the state was not rendered but derived from the full run; why, and why a rendered one was. */
  derivedFrom?: string;
  derivedReason?: string;
  renderedBecause?: string;
}

// Budgets: a creative controls how many cookies, keys, hosts and URLs it makes; the report keeps this many of each.
const MAX_LIST = 200;
const MAX_VIOLATIONS = 300;
const MAX_MACROS = 100;
const MAX_WHAT = 300;

/** Plain data shaped as the proto's Privacy (report.ts creates the message). */
export interface PrivacySummary {
  states: Array<{
    state: string; cookies: Array<{ name: string; domain: string }>; storageKeys: string[]; thirdPartyDomains: string[];
    requests: number; pixels: number; signal: string; error: string; watchedMs: bigint;
    derivedFrom: string; derivedReason: string; renderedBecause: string;
  }>;
  /** What the full run saw the creative look for of the consent signals (consent-sensor.ts), sorted. */
  consentSignals: string[];
  readsConsent: boolean;
  consentCalls: Array<{ state: string; api: string; command: string; count: number; viaPostMessage: boolean }>;
  consentMacros: Array<{
    macro: string; host: string; foundIn: string; filled: boolean; vendorId: number; hostVendor?: VendorInfo; vendorMatches: boolean;
  }>;
  violations: Array<{ state: string; kind: string; what: string; domain: string }>;
  allowedDomains: string[];
  unapprovedDomains: string[];
}

/** The page's own host: the synthetic origin or page_url (its requests are ours or the publisher's, not third party). */
function pageHost(site: SyntheticSite): string {
  return hostOf(site.entryUrl);
}

/** Non-synthetic requests to a registrable domain other than the page's. */
function isThirdParty(r: RequestRecord, pageDomain: string): boolean {
  if (r.synthetic) return false;
  const h = hostOf(r.url);
  return h !== "" && registrableDomain(h) !== pageDomain;
}

/** A request that is tracking in itself: a measurement pixel, or any request to a measurement/analytics/data vendor. */
export function isTrackingRequest(r: RequestRecord, db: VendorDb): boolean {
  if (isPixel(r)) return true;
  const v = vendorOfHost(db, hostOf(r.url));
  return v !== undefined && TRACKING_CATEGORIES.has(v.category);
}

/** `allowed` entries are domains; a host is inside when it is one or a subdomain of one. */
export function withinAllowed(host: string, allowed: readonly string[]): boolean {
  return allowed.some((d) => host === d || host.endsWith(`.${d}`));
}

/** A customer's allowed_domains as the scan uses them: lower case, without a leading `*.` or `.`. */
export function normaliseAllowed(list: readonly string[]): string[] {
  return [...new Set(list.map((d) => d.trim().toLowerCase().replace(/^\*?\./, "")).filter((d) => d !== ""))];
}

function macroVendorId(name: string): number {
  const m = /^(?:GDPR_CONSENT|GPP_STRING)_(\d+)$/.exec(name);
  return m ? Number(m[1]) : 0;
}

/** Macros in a text: as written (${…}) and URL-encoded (%24%7B…%7D), with their names. */
function* macrosIn(text: string): Generator<{ macro: string; name: string; index: number }> {
  for (const re of [MACRO_RE, ENCODED_MACRO_RE]) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) yield { macro: `\${${m[1]!.toUpperCase()}}`, name: m[1]!.toUpperCase(), index: m.index };
  }
}

const URL_IN_MARKUP = /(?:https?:)?\/\/[^\s"'<>()\\]+/gi;

export function summarisePrivacy(input: {
  states: StateInput[];
  db: VendorDb;
  allowedDomains: readonly string[];
  signalsSeen?: readonly string[];
}): PrivacySummary {
  const signals = new Map(consentStates().map((s) => [s.name as string, s.signal]));
  const allowed = normaliseAllowed(input.allowedDomains);
  const out: PrivacySummary = {
    states: [], consentSignals: [...(input.signalsSeen ?? [])].sort(), readsConsent: false, consentCalls: [], consentMacros: [], violations: [], allowedDomains: allowed, unapprovedDomains: [],
  };
  const unapproved = new Set<string>();
  const macroKeys = new Map<string, PrivacySummary["consentMacros"][number]>();
  const addMacro = (macro: string, name: string, host: string, foundIn: string, filled: boolean) => {
    const key = `${macro}\u0000${host}\u0000${foundIn}`;
    if (macroKeys.has(key) || macroKeys.size >= MAX_MACROS) return;
    const vendorId = macroVendorId(name);
    const hostVendor = host ? vendorOfHost(input.db, host) : undefined;
    // A GDPR_CONSENT_nnn macro on a host whose vendor has a known GVL id names the vendor that reads the string.
    const vendorMatches = !(name.startsWith("GDPR_CONSENT_") && hostVendor && hostVendor.gvlId > 0 && hostVendor.gvlId !== vendorId);
    const entry = { macro, host, foundIn, filled, vendorId, ...(hostVendor ? { hostVendor } : {}), vendorMatches };
    macroKeys.set(key, entry);
    out.consentMacros.push(entry);
  };

  for (const s of input.states) {
    const domain = registrableDomain(pageHost(s.site));
    const third = new Set<string>();
    let pixels = 0;
    const refused = REFUSED_STATES.has(s.state);
    const seenTracking = new Set<string>();
    for (const r of s.requests) {
      const host = hostOf(r.url);
      if (isPixel(r)) pixels++;
      if (isThirdParty(r, domain)) {
        if (third.size < MAX_LIST) third.add(registrableDomain(host));
        if (refused && isTrackingRequest(r, input.db) && !seenTracking.has(r.url) && out.violations.length < MAX_VIOLATIONS) {
          seenTracking.add(r.url);
          out.violations.push({ state: s.state, kind: "tracking_request", what: r.url.slice(0, MAX_WHAT), domain: host });
        }
      }
      if (allowed.length > 0 && !r.synthetic && host && host !== pageHost(s.site) && !withinAllowed(host, allowed) && unapproved.size < MAX_LIST) unapproved.add(host);
      // A macro that reaches the network in a consent state was filled by nobody: its vendor got no consent signal.
      if (s.state !== "no_cmp" && !r.synthetic) for (const m of macrosIn(r.url)) addMacro(m.macro, m.name, host, "request", false);
    }
    const cookies = s.storage.cookies.slice(0, MAX_LIST).map((c) => ({ name: c.name, domain: c.domain }));
    // Frames of one origin (the CMP's locator frames, about:blank) read the same storage: each key once.
    const storageKeys = [...new Set(s.storage.localStorage.map((e) => e.key))].slice(0, MAX_LIST);
    if (refused) {
      for (const c of cookies) if (out.violations.length < MAX_VIOLATIONS) out.violations.push({ state: s.state, kind: "cookie", what: c.name.slice(0, MAX_WHAT), domain: c.domain });
      for (const k of storageKeys) if (out.violations.length < MAX_VIOLATIONS) out.violations.push({ state: s.state, kind: "storage", what: k.slice(0, MAX_WHAT), domain: "" });
    }
    for (const c of s.calls) out.consentCalls.push({ state: s.state, api: c.api, command: c.command, count: c.count, viaPostMessage: c.post });
    out.states.push({
      state: s.state, cookies, storageKeys, thirdPartyDomains: [...third].sort(), requests: s.requests.length, pixels,
      signal: signals.get(s.state) ?? "", error: s.error ?? "", watchedMs: BigInt(Math.max(0, Math.round(s.watchedMs))),
      derivedFrom: s.derivedFrom ?? "", derivedReason: s.derivedReason ?? "", renderedBecause: s.renderedBecause ?? "",
    });
  }
  out.readsConsent = out.consentCalls.length > 0;

  // Macros in the creative's own markup: the scan fills them in the consent states, as the ad server would.
  const markup = input.states[0]?.site.markup ?? "";
  const inUrls = new Set<number>();
  URL_IN_MARKUP.lastIndex = 0;
  for (let u = URL_IN_MARKUP.exec(markup); u; u = URL_IN_MARKUP.exec(markup)) {
    let host = "";
    try {
      host = new URL(u[0].startsWith("//") ? `https:${u[0]}` : u[0]).hostname.toLowerCase();
    } catch { /* no host */ }
    for (const m of macrosIn(u[0])) {
      inUrls.add(u.index + m.index);
      addMacro(m.macro, m.name, host, "markup", true);
    }
  }
  for (const m of macrosIn(markup)) if (!inUrls.has(m.index)) addMacro(m.macro, m.name, "", "markup", true);
  out.unapprovedDomains = [...unapproved].sort();
  return out;
}
