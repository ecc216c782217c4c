import type { Rect } from "../gatherers/layout.ts";
import type { ResizedLayout } from "../gatherers/measure.ts";

export interface Size { width: number; height: number }

/** Painted size: the measured creative box rounded to whole CSS pixels; 0x0 when nothing paints. */
export function paintedSize(box: Rect | null): Size {
  if (!box) return { width: 0, height: 0 };
  return { width: Math.round(box.width), height: Math.round(box.height) };
}

/**
 * The size the creative declares: an `ad.size` meta (HTML5 bundles), else the first element of the markup that
 * carries both a width and a height — as attributes (`<iframe width=300 height=250>`, `<img>`, `<ins>`), or as
 * pixel lengths in its inline style (`<ins style="display:block;width:160px;height:600px">`). 0x0 when none.
 */
export function declaredSize(markup: string, adSizeMeta?: Size | null): Size {
  if (adSizeMeta && adSizeMeta.width > 0 && adSizeMeta.height > 0) return adSizeMeta;
  const meta = /<meta[^>]+name\s*=\s*["']?ad\.size["']?[^>]*>/i.exec(markup)?.[0];
  if (meta) {
    const w = /width\s*=\s*(\d+)/i.exec(meta);
    const h = /height\s*=\s*(\d+)/i.exec(meta);
    if (w && h) return { width: Number(w[1]), height: Number(h[1]) };
  }
  const tagRe = /<([a-z][a-z0-9-]*)\b([^>]*)>/gi;
  for (let m = tagRe.exec(markup); m; m = tagRe.exec(markup)) {
    const name = m[1]!.toLowerCase();
    if (name === "script" || name === "meta" || name === "link" || name === "style") continue;
    const attrs = m[2]!;
    const aw = /\bwidth\s*=\s*["']?(\d+)(?:px)?["']?(?=[\s>/]|$)/i.exec(attrs);
    const ah = /\bheight\s*=\s*["']?(\d+)(?:px)?["']?(?=[\s>/]|$)/i.exec(attrs);
    if (aw && ah) return { width: Number(aw[1]), height: Number(ah[1]) };
    const style = /\bstyle\s*=\s*("([^"]*)"|'([^']*)')/i.exec(attrs);
    const css = style ? (style[2] ?? style[3] ?? "") : "";
    const sw = /(?:^|;)\s*width\s*:\s*(\d+(?:\.\d+)?)px/i.exec(css);
    const sh = /(?:^|;)\s*height\s*:\s*(\d+(?:\.\d+)?)px/i.exec(css);
    if (sw && sh) return { width: Math.round(Number(sw[1])), height: Math.round(Number(sh[1])) };
  }
  return { width: 0, height: 0 };
}

/** Visual artifacts: the creative paints at a size other than the one it declares (e.g. 300x250 painting 301x251). */
export function hasVisualArtifacts(declared: Size, painted: Size): boolean {
  if (declared.width <= 0 || declared.height <= 0 || painted.width <= 0) return false;
  return declared.width !== painted.width || declared.height !== painted.height;
}

/** Mobile friendly: narrower than 300 px, or responsive (its width followed a narrower viewport). */
export function mobileFriendly(painted: Size, resized: ResizedLayout | null): boolean {
  if (painted.width > 0 && painted.width < 300) return true;
  if (!resized || painted.width <= 0) return false;
  const width = paintedSize(resized.box).width;
  return width > 0 && width < painted.width && width <= resized.viewportWidth;
}
