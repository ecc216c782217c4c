import { findTags, inlineStyles } from "./html.ts";

/**
 * has_external_assets: the creative loads something from outside the zip.
 *
 * Primary evidence is the render: every request the browser made (answered or blocked — a blocked CDN script is
 * still an external dependency) whose host differs from the bundle's synthetic origin. Static evidence is added
 * (OR): absolute http(s) or protocol-relative URLs in places that load assets — src/srcset/poster/data/background
 * attributes, <link href>, SVG <image>/<use>/<script> href, CSS url() and @import (files, <style> and style="").
 * Anchors (<a href>) and URLs inside JavaScript are not counted: those are click-throughs and landing pages far
 * more often than assets, and the render catches what scripts really load.
 */

const ASSET_ATTRS = ["src", "srcset", "poster", "data", "background", "lowsrc", "dynsrc"];
const HREF_LOADING_TAGS = new Set(["link", "image", "use", "script", "feimage"]);
const ABSOLUTE = /^\s*(?:https?:)?\/\//i;
// "(" is excluded inside url(...) so that an attempt stops at the next url( — linear on hostile CSS.
const CSS_URL = /url\(\s*(["']?)([^"'()]*)\1\s*\)|@import\s+(["'])([^"']*)\3/gi;

export function externalUrlsInHtml(html: string): string[] {
  const urls: string[] = [];
  for (const tag of findTags(html)) {
    for (const attr of ASSET_ATTRS) {
      const value = tag.attrs.get(attr);
      if (value === undefined) continue;
      const candidates = attr === "srcset" ? value.split(",").map((s) => s.trim().split(/\s+/)[0] ?? "") : [value];
      urls.push(...candidates.filter((u) => ABSOLUTE.test(u)));
    }
    for (const attr of ["href", "xlink:href"]) {
      const value = tag.attrs.get(attr);
      if (value !== undefined && HREF_LOADING_TAGS.has(tag.name) && ABSOLUTE.test(value)) urls.push(value);
    }
    const style = tag.attrs.get("style");
    if (style) urls.push(...externalUrlsInCss(style));
  }
  for (const css of inlineStyles(html)) urls.push(...externalUrlsInCss(css));
  return urls.map((u) => u.trim());
}

export function externalUrlsInCss(css: string): string[] {
  const urls: string[] = [];
  for (const m of css.replace(/\/\*[\s\S]*?\*\//g, "").matchAll(CSS_URL)) {
    const url = m[2] ?? m[4] ?? "";
    if (ABSOLUTE.test(url)) urls.push(url.trim());
  }
  return urls;
}

/**
 * Request URLs that leave the bundle's origin. `origin` is the synthetic origin the tag scanner serves the bundle
 * from; without it the entry document's host is used (the first "document" response, else the first response).
 * Only network schemes count; data:, blob:, about: never leave the page.
 */
export function requestsLeavingOrigin(
  responses: ReadonlyArray<{ url: string; resourceType?: string }>, origin?: string,
): string[] {
  const host = origin ? safeHost(origin) : documentHost(responses);
  if (host === undefined) return [];
  return responses.map((r) => r.url).filter((url) => {
    const h = networkHost(url);
    return h !== undefined && h !== host;
  });
}

function documentHost(responses: ReadonlyArray<{ url: string; resourceType?: string }>): string | undefined {
  const doc = responses.find((r) => r.resourceType?.toLowerCase() === "document") ?? responses[0];
  return doc ? networkHost(doc.url) : undefined;
}

function networkHost(url: string): string | undefined {
  try {
    const u = new URL(url);
    return /^(?:https?|wss?):$/.test(u.protocol) ? u.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}
