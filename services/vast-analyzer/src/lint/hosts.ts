// Host names a viewer's player cannot reach: shared by the URL lint rule and the tracker checks (trackers.ts).

/** Hosts that exist only in test set-ups: reserved names (RFC 2606/6761), loopback and private addresses, staging names. */
export function nonProductionHost(host: string): string | undefined {
  const h = host.replace(/^\[|\]$/g, "");
  if (h === "localhost" || h.endsWith(".localhost")) return "localhost";
  if (/\.(test|invalid|local|example|internal|lan)$/.test(h) || /^example\.(com|net|org)$/.test(h) || h.endsWith(".example.com")) return "a reserved test domain";
  if (/^127\.|^0\.0\.0\.0$|^::1$/.test(h)) return "a loopback address";
  if (/^10\.|^192\.168\.|^172\.(1[6-9]|2\d|3[01])\.|^169\.254\.|^f[cd][0-9a-f]{2}:/i.test(h)) return "a private network address";
  if (h.split(".").some((label) => /^(staging|stage|stg|preprod|qa|uat|dev|sandbox)(\d+)?$/.test(label) || /-(staging|stage|stg|qa|uat|dev|sandbox)$/.test(label))) return "a staging or test host";
  return undefined;
}

