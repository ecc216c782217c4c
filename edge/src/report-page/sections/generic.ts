import { byKey, label } from "../format.ts";
import { artifactImage, esc, flag, isImage, isObj, kvTable, table, text, type J } from "../html.ts";

// Any field no section knows: shown rather than hidden, formatted by its name (units by the usual suffixes), objects as
// nested tables, arrays of objects as tables. A report kind or field added later is on the page the day it ships.

const MAX_DEPTH = 3;
const MAX_COLUMNS = 10;
const MAX_ITEMS = 200;

export function genericValue(key: string, v: unknown, base: string, depth = 0): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "boolean") return flag(v);
  if (typeof v === "number") return esc(byKey(key, v));
  if (typeof v === "string") return /^https?:\/\//.test(v) ? `<span class="url">${esc(v)}</span>` : esc(v.length > 2000 ? `${v.slice(0, 2000)}…` : v);
  if (isImage(v)) return artifactImage(v, label(key), base, { className: "thumb" }) || "none";
  if (Array.isArray(v)) {
    if (v.length === 0) return "none";
    if (v.every((x) => !isObj(x) && !Array.isArray(x))) {
      const items = v.slice(0, MAX_ITEMS).map((x) => genericValue(key, x, base, depth + 1));
      return `${items.join(", ")}${v.length > MAX_ITEMS ? ` (${v.length - MAX_ITEMS} more)` : ""}`;
    }
    if (depth >= MAX_DEPTH) return esc(`${v.length} items`);
    return arrayTable(v, base, depth);
  }
  if (isObj(v)) {
    const entries = Object.entries(v);
    if (entries.length === 0) return "none";
    if (depth >= MAX_DEPTH) return esc(JSON.stringify(v).slice(0, 500));
    return kvTable(entries.slice(0, MAX_ITEMS).map(([k, x]) => [label(k), genericValue(k, x, base, depth + 1) || "—"]));
  }
  return esc(text(v));
}

function arrayTable(items: unknown[], base: string, depth: number): string {
  const keys: string[] = [];
  for (const it of items.slice(0, MAX_ITEMS)) {
    if (!isObj(it)) continue;
    for (const k of Object.keys(it)) if (!keys.includes(k) && keys.length < MAX_COLUMNS) keys.push(k);
  }
  return table(
    keys.map((k) => ({ head: label(k) })),
    items.map((it) => keys.map((k) => (isObj(it) ? genericValue(k, it[k], base, depth + 1) : esc(text(it))))),
    { max: MAX_ITEMS },
  );
}

/** The report's fields that no section showed: scalars in one table, each object or array under its own heading. */
export function renderOther(report: J, shown: Set<string>, base: string): string {
  const rest = Object.entries(report).filter(([k]) => !shown.has(k));
  if (rest.length === 0) return "";
  const scalars = rest.filter(([, v]) => !isObj(v) && !Array.isArray(v));
  const nested = rest.filter(([, v]) => isObj(v) || Array.isArray(v));
  return [
    kvTable(scalars.map(([k, v]) => [label(k), genericValue(k, v, base) || "—"])),
    ...nested.map(([k, v]) => `<h3>${esc(label(k))}</h3>${genericValue(k, v, base) || "<p>none</p>"}`),
  ].join("");
}
