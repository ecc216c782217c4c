// Everything that goes into HTML passes through esc(): creative-controlled strings (cookie values, console messages,
// URLs, names) are hostile by default. The builders below take cells that are already HTML and escape nothing
// themselves, so every call site escapes what it puts in (esc, or a formatter's text through esc).
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

/** The stored JSON, read defensively: any key may be missing or of another type in a report of another version. */
export type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- stored JSON

export const isObj = (v: unknown): v is J => typeof v === "object" && v !== null && !Array.isArray(v);
export const obj = (v: unknown): J => (isObj(v) ? v : {});
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const objs = (v: unknown): J[] => list(v).filter(isObj);
export const text = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
export const finite = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

export function section(id: string, title: string, body: string): string {
  if (!body) return "";
  return `<section id="${esc(id)}" aria-labelledby="h-${esc(id)}"><h2 id="h-${esc(id)}">${esc(title)}</h2>${body}</section>`;
}

export interface Column {
  head: string;
  /** "num": right-aligned, never wrapped; "url": may break anywhere (long URLs); "nowrap": kept on one line. */
  kind?: "num" | "url" | "nowrap";
}

/** A data table; cells are HTML. At most `max` rows, then a line saying how many were left out. */
export function table(columns: Column[], rows: string[][], opts: { caption?: string; max?: number; className?: string } = {}): string {
  if (rows.length === 0) return "";
  const max = opts.max ?? rows.length;
  const cls = (c: Column | undefined) => (c?.kind ? ` class="${c.kind}"` : "");
  const head = columns.map((c) => `<th scope="col"${cls(c)}>${esc(c.head)}</th>`).join("");
  const body = rows
    .slice(0, max)
    .map((r) => `<tr>${r.map((cell, i) => `<td${cls(columns[i])}>${cell}</td>`).join("")}</tr>`)
    .join("");
  const caption = opts.caption ? `<caption>${esc(opts.caption)}</caption>` : "";
  // The box scrolls a table wider than the screen (a phone); a keyboard user reaches it with Tab and scrolls it with the
  // arrow keys (WCAG 2.1.1; axe-core's scrollable-region-focusable), its name says which table it is.
  const region = opts.caption ?? `Table: ${columns.map((c) => c.head).join(", ")}`;
  return `<div class="scroll" tabindex="0" role="region" aria-label="${esc(region)}"><table class="data${opts.className ? ` ${esc(opts.className)}` : ""}">${caption}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${more(rows.length, max)}`;
}

/** Label/value rows; values are HTML. Rows whose value is "" are left out. */
export function kvTable(rows: Array<[string, string]>, caption?: string): string {
  const kept = rows.filter(([, v]) => v !== "");
  if (kept.length === 0) return "";
  return `<table class="kv">${caption ? `<caption>${esc(caption)}</caption>` : ""}<tbody>${kept
    .map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${v}</td></tr>`)
    .join("")}</tbody></table>`;
}

export function more(total: number, shown: number): string {
  return total > shown ? `<p class="note">${esc(total - shown)} more not shown (see the JSON report).</p>` : "";
}

export function bulletList(items: string[], opts: { max?: number; code?: boolean } = {}): string {
  if (items.length === 0) return "";
  const max = opts.max ?? 100;
  const li = (s: string) => (opts.code ? `<li><code class="url">${esc(s)}</code></li>` : `<li>${esc(s)}</li>`);
  return `<ul class="plain">${items.slice(0, max).map(li).join("")}</ul>${more(items.length, max)}`;
}

const RESULT_WORD: Record<string, string> = { passed: "passed", failed: "failed", error: "not evaluated" };

/** A test result as a badge that never wraps ("not evaluated" for the API's "error": the test could not run). */
export function badge(result: string): string {
  const r = RESULT_WORD[result] ? result : "error";
  return `<span class="badge r-${r}">${RESULT_WORD[r]}</span>`;
}

export const urlText = (u: unknown): string => `<span class="url">${esc(u)}</span>`;

/** yes/no with a class a stylesheet can colour; `good` says which answer is the good one, if either. */
export function flag(v: unknown, good?: boolean): string {
  const yes = Boolean(v);
  const cls = good === undefined ? "" : yes === good ? " good" : " bad";
  return `<span class="flag${cls}">${yes ? "yes" : "no"}</span>`;
}

/**
 * An image from the report, embedded only when the edge itself serves it (…/artifacts/…): the CSP allows no other
 * origin, and a report URL pointing elsewhere is the creative's, not ours.
 */
export function artifactImage(img: unknown, alt: string, publicBaseUrl: string, opts: { className?: string; width?: number } = {}): string {
  const url = obj(img).url;
  if (!isArtifactUrl(url, publicBaseUrl)) return "";
  const width = opts.width && opts.width > 0 ? ` width="${esc(Math.round(opts.width))}"` : "";
  return `<img class="${esc(opts.className ?? "shot")}" src="${safeUrl(url)}" alt="${esc(alt)}"${width}>`;
}

export function isArtifactUrl(url: unknown, publicBaseUrl: string): url is string {
  return typeof url === "string" && url.startsWith(`${publicBaseUrl.replace(/\/+$/, "")}/artifacts/`);
}

/** An image object of the report ({url, mime_type, bytes}), empty or not. */
export const isImage = (v: unknown): v is J => isObj(v) && typeof v.url === "string" && "mime_type" in v;

/** A #rrggbb colour swatch (SVG: a style attribute would need 'unsafe-inline' in the CSP). */
export function swatch(color: unknown): string {
  if (typeof color !== "string" || !/^#[0-9a-fA-F]{6}$/.test(color)) return "";
  return `<svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" fill="${esc(color)}"/></svg> <code>${esc(color)}</code>`;
}
