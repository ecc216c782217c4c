// Everything that goes into HTML passes through esc(): creative-controlled strings (cookie values, console messages,
// URLs, names) are hostile by default.
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

export function esc(v: unknown): string {
  if (v === undefined || v === null) return "";
  return String(v).replace(/[&<>"'`]/g, (c) => ENTITIES[c] ?? c);
}

/** A URL fit for href/src: only http(s) survives; anything else (javascript:, data:, ...) becomes "#". */
export function safeUrl(v: unknown): string {
  if (typeof v !== "string") return "#";
  try {
    const u = new URL(v);
    return u.protocol === "http:" || u.protocol === "https:" ? esc(u.href) : "#";
  } catch {
    return "#";
  }
}

export const PAGE_STYLE = `
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:1.5rem;margin:0 0 4px} h2{font-size:1.15rem;margin:28px 0 8px} h3{font-size:1rem;margin:18px 0 6px}
.sub{color:#5b6675;font-size:.9rem;word-break:break-all}
.verdict{display:inline-block;padding:6px 12px;border-radius:6px;font-weight:600;margin:12px 0}
.ok{background:#dff5e3;color:#17632a}.bad{background:#fde2e1;color:#8a1c14}.neutral{background:#e7ebf0;color:#334}
table{border-collapse:collapse;width:100%;background:#fff;font-size:.85rem}
th,td{border:1px solid #dde2e8;padding:5px 8px;text-align:left;vertical-align:top;word-break:break-word}
th{background:#eef1f5}
.grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px}
.shot{max-width:100%;border:1px solid #ccd3db;background:#fff}
code{font-size:.85em}
td.passed{color:#17632a;font-weight:600} td.failed{color:#8a1c14;font-weight:600} td.error{color:#8a5a00;font-weight:600}
`;
