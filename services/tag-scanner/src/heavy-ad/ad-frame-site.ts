import { SYNTHETIC_ORIGIN } from "../config.ts";
import { hostPageHtml, type SyntheticResponse, type SyntheticSite } from "../synthetic-origin.ts";
import { AD_FRAME_PATH } from "./ruleset.ts";

/**
 * The publisher page of the heavy-ad run: another site than the creative's, as a served ad is, with nothing but the
 * ad frame of the creative's size.
 */
export const PUBLISHER_URL = "https://publisher.cva-heavy-ad.invalid/";

const enc = new TextEncoder();

/**
 * The creative's site served inside a frame whose URL Chrome's ad tagging matches (AD_FRAME_PATH, heavy-ad/ruleset.ts):
 * the frame is the creative's entry under `<synthetic origin>/cva-heavy-ad/`, and what the creative asks for below that
 * path is its own file at the path without the prefix — relative URLs of a bundle resolve there; root-relative and
 * absolute ones reach the creative's site unchanged. A tag's frame is its host page (the tag inline in it), at the
 * synthetic origin whatever page_url says: the frame is not the publisher's page.
 */
export function adFrameSite(site: SyntheticSite, width: number, height: number): SyntheticSite & { adFrameUrl: string } {
  const prefix = AD_FRAME_PATH.replace(/\/$/, "");
  const creativeUrl = site.slot?.creativeUrl ?? (site.hostPageIsWrapper ? `${SYNTHETIC_ORIGIN}/` : site.entryUrl);
  const entry = new URL(creativeUrl);
  const adFrameUrl = `${SYNTHETIC_ORIGIN}${prefix}${entry.pathname}${entry.search}`;
  const w = Math.max(1, Math.min(Math.round(width), 4_000));
  const h = Math.max(1, Math.min(Math.round(height), 4_000));
  const publisher = enc.encode(
    `<!DOCTYPE html><html><head><meta charset="utf-8"><style>html,body{margin:0}iframe{display:block;border:0}</style></head>` +
    `<body><iframe src="${adFrameUrl}" width="${w}" height="${h}" scrolling="no" title="ad"></iframe></body></html>`,
  );
  const tagPage = site.hostPageIsWrapper ? enc.encode(hostPageHtml(site.markup)) : undefined;
  const html = (body: Uint8Array): SyntheticResponse => ({ status: 200, contentType: "text/html; charset=utf-8", body });
  return {
    ...site,
    entryUrl: PUBLISHER_URL,
    adFrameUrl,
    hostPageIsWrapper: true,
    respond(url) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return undefined;
      }
      if (u.origin === new URL(PUBLISHER_URL).origin) return u.pathname === "/" ? html(publisher) : { status: 404, contentType: "text/plain", body: enc.encode("not found") };
      if (u.origin === SYNTHETIC_ORIGIN && (u.pathname === prefix || u.pathname.startsWith(`${prefix}/`))) {
        const own = `${SYNTHETIC_ORIGIN}${u.pathname.slice(prefix.length) || "/"}${u.search}`;
        if (tagPage && own.split("?")[0] === `${SYNTHETIC_ORIGIN}/`) return html(tagPage);
        return site.respond(own);
      }
      return site.respond(url);
    },
  };
}
