import { getDomain } from "tldts-experimental";

/**
 * Whom a request talks to. The open tracker databases we checked do not allow commercial use: DuckDuckGo Tracker
 * Radar and Ghostery's TrackerDB (npm @ghostery/trackerdb, the WhoTracks.me data) are CC BY-NC-SA 4.0, the
 * Disconnect list GPL-3.0 / CC BY-NC-SA. So this is our own curated list of the major ad-tech domains: the company,
 * its role in ad delivery, and its IAB TCF Global Vendor List id where we know it (the id a `${GDPR_CONSENT_nnn}`
 * macro must name). It is data, not a measurement: an unknown host is simply unknown.
 */
export interface VendorInfo {
  name: string;
  /** ad_server, ad_exchange, measurement, verification, analytics, data_platform, social, cdn, creative_platform. */
  category: string;
  /** IAB TCF Global Vendor List id; 0 when it has none or we do not know it. */
  gvlId: number;
}

/** Categories whose requests are tracking in themselves (audience or ad measurement), whatever the resource. */
export const TRACKING_CATEGORIES: ReadonlySet<string> = new Set(["measurement", "analytics", "data_platform", "social", "verification"]);

type Row = [domains: string, name: string, category: string, gvlId: number];

// Registrable domains (space-separated) → vendor. Keep to registrable domains: lookups strip subdomains.
const ROWS: Row[] = [
  ["doubleclick.net googlesyndication.com googleadservices.com googletagservices.com 2mdn.net admob.com adtrafficquality.google", "Google Advertising Products", "ad_server", 755],
  ["google-analytics.com googletagmanager.com", "Google Analytics", "analytics", 755],
  ["adnxs.com adnxs-simple.com", "Microsoft Advertising (Xandr)", "ad_exchange", 32],
  ["adsrvr.org", "The Trade Desk", "ad_server", 21],
  ["criteo.com criteo.net", "Criteo", "ad_server", 91],
  ["casalemedia.com indexww.com", "Index Exchange", "ad_exchange", 10],
  ["pubmatic.com", "PubMatic", "ad_exchange", 76],
  ["rubiconproject.com", "Magnite", "ad_exchange", 52],
  ["openx.net", "OpenX", "ad_exchange", 69],
  ["amazon-adsystem.com", "Amazon Ads", "ad_server", 793],
  ["quantserve.com quantcount.com", "Quantcast", "measurement", 11],
  ["adform.net adformdsp.net", "Adform", "ad_server", 50],
  ["smartadserver.com sascdn.com", "Equativ (Smart AdServer)", "ad_server", 45],
  ["mathtag.com", "MediaMath", "ad_server", 79],
  ["yahoo.com advertising.com yimg.com", "Yahoo", "ad_server", 25],
  ["teads.tv", "Teads", "ad_server", 132],
  ["lijit.com sovrn.com", "Sovrn", "ad_exchange", 13],
  ["3lift.com", "TripleLift", "ad_exchange", 28],
  ["taboola.com", "Taboola", "ad_server", 42],
  ["outbrain.com", "Outbrain", "ad_server", 164],
  ["adsafeprotected.com iasds01.com", "Integral Ad Science", "verification", 278],
  ["doubleverify.com", "DoubleVerify", "verification", 126],
  ["moatads.com", "Moat (Oracle)", "verification", 0],
  ["scorecardresearch.com", "Comscore", "measurement", 77],
  ["rlcdn.com", "LiveRamp", "data_platform", 97],
  ["id5-sync.com", "ID5", "data_platform", 131],
  ["crwdcntrl.net", "Lotame", "data_platform", 95],
  ["flashtalking.com", "Flashtalking", "ad_server", 78],
  ["sharethrough.com", "Sharethrough", "ad_exchange", 80],
  ["smaato.net", "Smaato", "ad_exchange", 82],
  ["imrworldwide.com", "Nielsen", "measurement", 0],
  ["facebook.com facebook.net", "Meta", "social", 0],
  ["linkedin.com licdn.com", "LinkedIn", "social", 0],
  ["twitter.com ads-twitter.com", "X (Twitter)", "social", 0],
  ["tiktok.com", "TikTok", "social", 0],
  ["innovid.com", "Innovid", "ad_server", 0],
  ["celtra.com", "Celtra", "creative_platform", 0],
  ["sizmek.com serving-sys.com", "Amazon Ad Server (Sizmek)", "ad_server", 0],
  ["hotjar.com", "Hotjar", "analytics", 0],
  ["cloudflare.com cdnjs.cloudflare.com jsdelivr.net unpkg.com", "public CDN", "cdn", 0],
  ["cloudfront.net akamaihd.net akamaized.net fastly.net", "CDN", "cdn", 0],
];

export type VendorDb = ReadonlyMap<string, VendorInfo>;

function build(rows: readonly Row[]): Map<string, VendorInfo> {
  const m = new Map<string, VendorInfo>();
  for (const [domains, name, category, gvlId] of rows) for (const d of domains.split(" ")) m.set(d, { name, category, gvlId });
  return m;
}

/** The curated list; `extra` adds or overrides rows (tests add their fixture hosts' owners). */
export function vendorDb(extra: Record<string, VendorInfo> = {}): VendorDb {
  const m = build(ROWS);
  for (const [d, v] of Object.entries(extra)) m.set(d.toLowerCase(), v);
  return m;
}

/** The registrable domain (eTLD+1, public suffix list): a.b.doubleclick.net → doubleclick.net; an IP stays as it is. */
export function registrableDomain(host: string): string {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return getDomain(h, { allowPrivateDomains: false }) ?? h;
}

/** The vendor of a host: the host itself, then each parent domain down to the registrable one. */
export function vendorOfHost(db: VendorDb, host: string): VendorInfo | undefined {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  const labels = h.split(".");
  for (let i = 0; i < labels.length - 1; i++) {
    const v = db.get(labels.slice(i).join("."));
    if (v) return v;
  }
  return db.get(h);
}

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return "";
  }
}
