import type { ScanJob } from "@cva/contracts";
import { SYNTHETIC_ORIGIN } from "./config.ts";
import { isMraidScript, mentionsMraid, MRAID_HOST_JS } from "./mraid-host.ts";

/** A response our request interception gives instead of the network. */
export interface SyntheticResponse {
  status: number;
  contentType: string;
  body: Uint8Array;
}

/**
 * What the browser opens and what interception answers.
 *
 * Ad tag: the tag is placed inline in the <body> of a host page whose URL is `targeting.page_url` (or the synthetic
 * origin's root). Inline rather than in a same-origin "friendly" iframe because tags are written to be pasted into a
 * publisher page: they document.write while the page parses, look up their own <ins>/<div> by position, and read
 * location/referrer — inline, `location.href` is exactly page_url, nothing of ours sits in between, and the
 * creative's box is measured in the top document without a frame boundary clipping it. The host page carries no
 * styles of its own apart from a zero margin, so everything painted is the creative's.
 *
 * Bundle (an extracted HTML5 zip): every file is served by path under the synthetic origin; a file the creative asks
 * for that the bundle lacks answers 404 (→ missing_assets). With a `frame_size` (the creative's ad.size) the entry is
 * served the way ad servers serve HTML5 zips: a slot page frames it in an iframe of exactly that width and height, so
 * the creative's window is the slot — a responsive export (Google Web Designer responsive, Hype scale-to-fit,
 * width:100% layouts) lays itself out at its ad size instead of filling the scanner's viewport, and what it paints is
 * clipped to the slot as on a publisher's page. Without a frame size the entry is the top document.
 */
export interface SyntheticSite {
  /** URL the top frame navigates to. */
  entryUrl: string;
  /** The tag's own markup (the entry HTML for a bundle), for declared size, ad-server and ad-block checks. */
  markup: string;
  /** True when entryUrl is our wrapper page (not a creative file): it is left out of network/load size. */
  hostPageIsWrapper: boolean;
  /**
   * Set when a bundle is framed: entryUrl is then the slot page (ours, not the creative's) and `creativeUrl` the
   * framed entry. For whoever attributes requests, frames and DOMContentLoaded to the creative: the slot page's
   * request, its one iframe and its DOMContentLoaded are the host's, not the creative's.
   */
  slot?: { creativeUrl: string; width: number; height: number };
  /** Answer for a request URL, or undefined to let it go to the network (through the egress proxy). */
  respond(url: string): SyntheticResponse | undefined;
  /**
   * Whether a URL is a file the placement provides rather than the creative (the MRAID container's `mraid.js`, which
   * an SDK answers from its own code): answered by `respond`, but no request of the creative's.
   */
  isContainerFile(url: string): boolean;
  /** The creative is written for an MRAID container (its markup or a script of its bundle loads mraid.js). */
  inApp: boolean;
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8", htm: "text/html; charset=utf-8", js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8", json: "application/json",
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", svg: "image/svg+xml",
  avif: "image/avif", ico: "image/x-icon", bmp: "image/bmp", mp4: "video/mp4", webm: "video/webm", ogg: "video/ogg",
  ogv: "video/ogg", mp3: "audio/mpeg", m4a: "audio/mp4", wav: "audio/wav", woff: "font/woff", woff2: "font/woff2",
  ttf: "font/ttf", otf: "font/otf", eot: "application/vnd.ms-fontobject", txt: "text/plain; charset=utf-8",
  xml: "application/xml", vtt: "text/vtt",
};

export function contentTypeFor(path: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? "";
  return TYPES[ext] ?? "application/octet-stream";
}

export function hostPageHtml(tag: string): string {
  // <meta viewport> makes mobile emulation lay the page out at device width, as a mobile publisher page would.
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><style>html,body{margin:0;padding:0}</style></head><body>${tag}</body></html>`;
}

/**
 * The slot page of a framed bundle: nothing but an iframe of the ad size at the top left, no margin, no border, no
 * scrollbars, same origin as the bundle (so storage and cookies are the creative's own, as in the unframed case).
 */
export function slotPageHtml(entryPath: string, width: number, height: number): string {
  const src = `/${entryPath.split("/").map(encodeURIComponent).join("/")}`;
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><style>html,body{margin:0;padding:0}iframe{display:block;border:0;margin:0;padding:0;width:${width}px;height:${height}px}</style></head><body><iframe src="${src}" width="${width}" height="${height}" scrolling="no" frameborder="0" title="ad"></iframe></body></html>`;
}

/** A path for the slot page that no file of the bundle has (the bundle's own files always win). */
function slotPagePath(files: ReadonlyMap<string, Uint8Array>): string {
  for (let i = 0; ; i++) {
    const p = `__cva_slot${i === 0 ? "" : i}__.html`;
    if (!files.has(p)) return p;
  }
}

const enc = new TextEncoder();

function sameDocument(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    x.hash = "";
    y.hash = "";
    return x.href === y.href;
  } catch {
    return false;
  }
}

const MRAID_RESPONSE: SyntheticResponse = { status: 200, contentType: "text/javascript; charset=utf-8", body: enc.encode(MRAID_HOST_JS) };

/** The site with the in-app placement's files: `mraid.js` from any host is the container's, as SDKs answer it. */
function withContainer(site: Omit<SyntheticSite, "isContainerFile" | "inApp">, texts: Iterable<string | Uint8Array>): SyntheticSite {
  let inApp = false;
  for (const t of texts) if ((inApp = mentionsMraid(t))) break;
  const isContainerFile = (url: string) => isMraidScript(url) && !sameDocument(url, site.entryUrl);
  return { ...site, isContainerFile, inApp, respond: (url) => (isContainerFile(url) ? MRAID_RESPONSE : site.respond(url)) };
}

/**
 * The URL an ad tag's host page is served at when it is not the synthetic origin: `targeting.page_url`, if it is a
 * usable http(s) URL (an unusable one falls back to the synthetic origin). Bundles are always served at the synthetic
 * origin. page-origin.ts checks this URL's host before the scan runs.
 */
export function hostPageUrl(job: ScanJob): string | undefined {
  if (job.input.case !== "tag" || job.input.value.creative.case === "bundle") return undefined;
  const pageUrl = job.targeting?.pageUrl?.trim();
  if (!pageUrl) return undefined;
  try {
    const u = new URL(pageUrl);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

export function buildSyntheticSite(job: ScanJob): SyntheticSite {
  return withContainer(buildCreativeSite(job), creativeTexts(job));
}

/** The creative's markup and scripts, as text: the tag, or a bundle's HTML and JavaScript files. */
function* creativeTexts(job: ScanJob): Generator<string | Uint8Array> {
  const creative = job.input.case === "tag" ? job.input.value.creative : undefined;
  if (creative?.case === "html") yield creative.value;
  if (creative?.case !== "bundle") return;
  for (const f of creative.value.files) if (/\.(html?|m?js)$/i.test(f.path)) yield f.data;
}

function buildCreativeSite(job: ScanJob): Omit<SyntheticSite, "isContainerFile" | "inApp"> {
  const input = job.input.case === "tag" ? job.input.value : undefined;
  const creative = input?.creative;
  if (creative?.case === "bundle") {
    const files = new Map<string, Uint8Array>();
    for (const f of creative.value.files) files.set(f.path.replace(/^\/+/, ""), f.data);
    const entry = creative.value.entry.replace(/^\/+/, "");
    const creativeUrl = new URL(`/${entry.split("/").map(encodeURIComponent).join("/")}`, SYNTHETIC_ORIGIN).href;
    let entryUrl = creativeUrl;
    const frame = creative.value.frameSize;
    let slotPage: Uint8Array | undefined;
    let slot: SyntheticSite["slot"];
    if (frame && frame.width > 0 && frame.height > 0) {
      slot = { creativeUrl, width: Math.min(frame.width, 10_000), height: Math.min(frame.height, 10_000) };
      entryUrl = new URL(`/${slotPagePath(files)}`, SYNTHETIC_ORIGIN).href;
      slotPage = enc.encode(slotPageHtml(entry, slot.width, slot.height));
    }
    return {
      entryUrl,
      ...(slot ? { slot } : {}),
      markup: new TextDecoder().decode(files.get(entry) ?? new Uint8Array()),
      // The slot page stays in the network list: it is the page request of this scan, and report.ts would otherwise
      // add the entry's bytes a second time (it counts a wrapper's markup as delivered with the wrapper, while the
      // framed entry arrives as its own request).
      hostPageIsWrapper: false,
      respond(url) {
        if (slotPage && sameDocument(url, entryUrl)) return { status: 200, contentType: "text/html; charset=utf-8", body: slotPage };
        let u: URL;
        try {
          u = new URL(url);
        } catch {
          return undefined;
        }
        if (u.origin !== SYNTHETIC_ORIGIN) return undefined;
        let path: string;
        try {
          path = decodeURIComponent(u.pathname).replace(/^\/+/, "");
        } catch {
          path = u.pathname.replace(/^\/+/, "");
        }
        if (path === "" ) path = entry;
        const data = files.get(path) ?? (path.endsWith("/") ? files.get(`${path}index.html`) : undefined);
        if (!data) return { status: 404, contentType: "text/plain; charset=utf-8", body: enc.encode("not in bundle") };
        return { status: 200, contentType: contentTypeFor(path), body: data };
      },
    };
  }
  const tag = creative?.case === "html" ? creative.value : "";
  const entryUrl = hostPageUrl(job) ?? `${SYNTHETIC_ORIGIN}/`;
  const page = enc.encode(hostPageHtml(tag));
  return {
    entryUrl,
    markup: tag,
    hostPageIsWrapper: true,
    respond(url) {
      if (sameDocument(url, entryUrl)) return { status: 200, contentType: "text/html; charset=utf-8", body: page };
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return undefined;
      }
      // Relative URLs of a tag resolve against the synthetic origin, where nothing else exists.
      if (u.origin === SYNTHETIC_ORIGIN) return { status: 404, contentType: "text/plain; charset=utf-8", body: enc.encode("not found") };
      return undefined;
    },
  };
}
