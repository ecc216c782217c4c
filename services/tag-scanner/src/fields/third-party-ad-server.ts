/**
 * Third-party ad servers recognised by request host (or by a marker in the tag's markup, e.g. CM360's
 * `<ins class="dcmads">`). Ordered: the first request (in request order) that matches names the ad server.
 */
const AD_SERVERS: Array<{ name: string; host?: RegExp; url?: RegExp; markup?: RegExp }> = [
  {
    name: "Google Campaign Manager 360", host: /(^|\.)(doubleclick\.net|2mdn\.net|dcmads\.com)$/,
    url: /^https?:\/\/(www\.)?googletagservices\.com\/dcm\//i, markup: /class\s*=\s*["']?dcmads/i,
  },
  { name: "Google Ad Manager", host: /(^|\.)(googlesyndication\.com|googletagservices\.com|googleadservices\.com|admanager\.google\.com)$/ },
  { name: "Sizmek", host: /(^|\.)(serving-sys\.com|sizmek\.com)$/ },
  { name: "Flashtalking", host: /(^|\.)(flashtalking\.com|flashtalking\.net)$/ },
  { name: "Celtra", host: /(^|\.)(celtra\.com|celtra\.io)$/ },
  { name: "Adform", host: /(^|\.)(adform\.net|adform\.com|adformdsp\.net)$/ },
  { name: "Innovid", host: /(^|\.)innovid\.com$/ },
  { name: "Xandr (AppNexus)", host: /(^|\.)(adnxs\.com|adnxs\.net|appnexus\.com|xandr\.com)$/ },
  { name: "Amazon Ads", host: /(^|\.)(amazon-adsystem\.com|aax\.amazon-adsystem\.com)$/ },
  { name: "Criteo", host: /(^|\.)(criteo\.com|criteo\.net)$/ },
  { name: "The Trade Desk", host: /(^|\.)adsrvr\.org$/ },
  { name: "Smart AdServer (Equativ)", host: /(^|\.)(smartadserver\.com|sascdn\.com)$/ },
  { name: "Weborama", host: /(^|\.)(weborama\.fr|weborama\.com|weborama\.nl)$/ },
  { name: "ADITION", host: /(^|\.)(adition\.com|adition\.net)$/ },
  { name: "Jivox", host: /(^|\.)jivox\.com$/ },
  { name: "Extreme Reach", host: /(^|\.)(extremereach\.io|extreme-reach\.com)$/ },
  { name: "MediaMath", host: /(^|\.)mathtag\.com$/ },
  { name: "Teads", host: /(^|\.)teads\.tv$/ },
  { name: "PubMatic", host: /(^|\.)pubmatic\.com$/ },
  { name: "Magnite", host: /(^|\.)(rubiconproject\.com|magnite\.com)$/ },
  { name: "OpenX", host: /(^|\.)(openx\.net|servedbyopenx\.com)$/ },
  { name: "Yahoo Advertising", host: /(^|\.)(ads\.yahoo\.com|yahoo\.net|advertising\.com)$/ },
  { name: "Adobe Advertising", host: /(^|\.)(tubemogul\.com|everesttech\.net)$/ },
];

function host(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** URLs written in the markup (scripts may still be blocked or fail; the tag names its server anyway). */
export function markupUrls(markup: string): string[] {
  return [...markup.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'<>()\\]*/gi)].map((m) =>
    m[0].startsWith("//") ? `https:${m[0]}` : m[0],
  );
}

export function thirdPartyAdServer(requestUrls: string[], markup: string): string {
  for (const url of [...requestUrls, ...markupUrls(markup)]) {
    const h = host(url);
    if (!h) continue;
    for (const s of AD_SERVERS) if (s.url?.test(url) || s.host?.test(h)) return s.name;
  }
  for (const s of AD_SERVERS) if (s.markup?.test(markup)) return s.name;
  return "";
}
