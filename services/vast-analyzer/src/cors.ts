/**
 * The `cors` field: whether a JavaScript player on another origin may read the VAST response with cookies.
 *
 * VAST 3.0 §2.1.5.2 (spec/iab-guidelines.md, "VAST CORS") requires
 *   Access-Control-Allow-Origin: <the request's Origin>   and   Access-Control-Allow-Credentials: true
 * so that ad requests carry and set cookies. A wildcard `*` does not meet it: browsers refuse `*` for credentialed
 * requests ("A wildcard '*' cannot be used ... when the credentials flag is true", MailOnline/videojs-vast-vpaid
 * #185), and without credentials the VAST 3 requirement is not met either. So `*` is reported as false, whatever
 * Access-Control-Allow-Credentials says.
 */
export function corsAllowsPlayer(headers: Record<string, string>, requestOrigin: string): boolean {
  const allowOrigin = (headers["access-control-allow-origin"] ?? "").trim();
  const allowCredentials = (headers["access-control-allow-credentials"] ?? "").trim().toLowerCase();
  if (allowOrigin === "" || allowOrigin === "*") return false;
  // Browsers compare the serialized origin exactly (one value, no list); scheme and host are lower case in both.
  return allowOrigin.toLowerCase() === requestOrigin.toLowerCase() && allowCredentials === "true";
}
