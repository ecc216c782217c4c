import { findTags } from "./html.ts";

export interface AdSize {
  /** A `<meta name="ad.size">` whose content carries a positive width and height (IAB HTML5 guidelines). */
  found: boolean;
  width: number;
  height: number;
}

/**
 * `<meta name="ad.size" content="width=300,height=250">`, tolerant of attribute order, quoting, case, spaces and
 * `;` separators, and of "px" units. The first ad.size meta carrying both dimensions wins.
 */
export function metaAdSize(html: string): AdSize {
  for (const tag of findTags(html, "meta")) {
    if ((tag.attrs.get("name") ?? "").trim().toLowerCase() !== "ad.size") continue;
    const size = parseAdSizeContent(tag.attrs.get("content") ?? "");
    if (size) return { found: true, ...size };
  }
  return { found: false, width: 0, height: 0 };
}

export function parseAdSizeContent(content: string): { width: number; height: number } | null {
  let width = 0;
  let height = 0;
  for (const part of content.split(/[,;]/)) {
    const m = /^\s*(width|height)\s*[=:]\s*(\d{1,5})\s*(?:px)?\s*$/i.exec(part);
    if (!m) continue;
    if (m[1].toLowerCase() === "width") width = Number(m[2]);
    else height = Number(m[2]);
  }
  return width > 0 && height > 0 ? { width, height } : null;
}
