// KV keys are NATS subjects: tokens separated by '.', no spaces or wildcards. Customer ids come from operators and
// may contain anything, so every externally supplied id is encoded into one safe token (base64url, no padding: only
// [A-Za-z0-9_-], never '.', '*' or '>').
export function token(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

export function untoken(tok: string): string {
  return Buffer.from(tok, "base64url").toString("utf8");
}

// UTC calendar month, "YYYY-MM": quotas reset at 00:00 UTC on the 1st.
export function utcMonth(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
}

// 00:00 UTC on the 1st of the month containing `ms`.
export function utcMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export function previousUtcMonth(ms: number): string {
  return utcMonth(utcMonthStart(ms) - 1);
}
