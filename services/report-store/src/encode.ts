// KV keys are NATS subjects ('.'-separated tokens, no spaces or wildcards). Ids that come from outside (customer ids,
// job ids, page tokens) are therefore stored as one base64url token each: only [A-Za-z0-9_-], never '.', '*', '>'.
export function token(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

// Newest-first order from an ascending key sort: 13 digits cover every millisecond timestamp up to the year 2286.
const MAX_MS = 9_999_999_999_999;
export function invertedMs(ms: number): string {
  const clamped = Math.min(Math.max(0, Math.trunc(ms)), MAX_MS);
  return String(MAX_MS - clamped).padStart(13, "0");
}
