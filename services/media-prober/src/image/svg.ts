import { ImageInputError } from "./errors.ts";
import { skipProlog } from "./format.ts";

/**
 * An SVG's intrinsic size, as a browser's <img> takes it: the root <svg>'s `width` and `height` in absolute units
 * (px or unitless; pt, pc, mm, cm, in at CSS's 96 px per inch); where one is missing or relative (%, em), the
 * viewBox gives it (both from the viewBox, or the missing one from the other and the viewBox's ratio). Without either
 * the SVG has no intrinsic size (a browser then uses its default object size, 300x150): width and height are 0 and
 * not measured.
 */
export interface SvgFacts {
  width: number;
  height: number;
  /** Where the size came from. */
  sizeFrom: "attributes" | "viewBox" | "none";
  viewBox?: { width: number; height: number };
}

const UNIT_PX: Record<string, number> = { "": 1, px: 1, pt: 96 / 72, pc: 16, mm: 96 / 25.4, cm: 96 / 2.54, in: 96 };

function length(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*([a-z%]*)\s*$/i.exec(v);
  if (!m) return undefined;
  const unit = UNIT_PX[m[2]!.toLowerCase()];
  const n = Number(m[1]) * (unit ?? NaN);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** The attributes of the root <svg> start tag (first 64 KB of the file at most: a root tag is never longer). */
export function rootAttributes(b: Uint8Array): Map<string, string> {
  const text = new TextDecoder("utf-8").decode(b.subarray(0, 64 * 1024)).replace(/^\uFEFF/, "");
  const rest = skipProlog(text);
  const tag = /^<svg((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/i.exec(rest);
  if (!tag) throw new ImageInputError("the SVG's root <svg> tag could not be read");
  const attrs = new Map<string, string>();
  for (const a of tag[1]!.matchAll(/([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    attrs.set(a[1]!.toLowerCase(), a[2] ?? a[3] ?? a[4] ?? "");
  }
  return attrs;
}

export function svgFacts(b: Uint8Array): SvgFacts {
  const attrs = rootAttributes(b);
  const vb = attrs.get("viewbox")?.trim().split(/[\s,]+/).map(Number);
  const viewBox = vb && vb.length === 4 && vb.every(Number.isFinite) && vb[2]! > 0 && vb[3]! > 0 ? { width: vb[2]!, height: vb[3]! } : undefined;
  let w = length(attrs.get("width"));
  let h = length(attrs.get("height"));
  if (w !== undefined && h !== undefined) return { width: round(w), height: round(h), sizeFrom: "attributes", viewBox };
  if (viewBox) {
    if (w !== undefined) h = (w * viewBox.height) / viewBox.width;
    else if (h !== undefined) w = (h * viewBox.width) / viewBox.height;
    else return { width: round(viewBox.width), height: round(viewBox.height), sizeFrom: "viewBox", viewBox };
    return { width: round(w!), height: round(h!), sizeFrom: "attributes", viewBox };
  }
  return { width: 0, height: 0, sizeFrom: "none", viewBox };
}

const round = (n: number) => Math.max(1, Math.round(n));
