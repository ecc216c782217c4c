/**
 * A URL as written in VAST, made absolute against the document it came from. VAST values are often sloppy (spaces,
 * line breaks inside CDATA, relative paths); the WHATWG parser drops tabs/newlines and percent-encodes spaces, as a
 * browser-based player would. Undefined when it cannot be made into a URL at all.
 */
export function resolveVastUrl(raw: string, base: string | undefined): URL | undefined {
  const value = raw.trim();
  if (value === "") return undefined;
  try {
    return base === undefined ? new URL(value) : new URL(value, base);
  } catch {
    return undefined;
  }
}

export function isHttpUrl(u: URL | undefined): u is URL {
  return u !== undefined && (u.protocol === "http:" || u.protocol === "https:");
}

/** Identity of a document in a chain, for loop detection: the fragment never reaches the server. */
export function chainKey(u: URL): string {
  const c = new URL(u.href);
  c.hash = "";
  return c.href;
}
