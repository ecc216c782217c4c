import type { ScanJob } from "@cva/contracts";
import { SYNTHETIC_ORIGIN } from "./config.ts";

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
 * Bundle (an extracted HTML5 zip): every file is served by path under the synthetic origin and the entry is opened
 * as the top document; a file the creative asks for that the bundle lacks answers 404 (→ missing_assets).
 */
export interface SyntheticSite {
  /** URL the top frame navigates to. */
  entryUrl: string;
  /** The tag's own markup (the entry HTML for a bundle), for declared size, ad-server and ad-block checks. */
  markup: string;
  /** True when entryUrl is our wrapper page (not a creative file): it is left out of network/load size. */
  hostPageIsWrapper: boolean;
  /** Answer for a request URL, or undefined to let it go to the network (through the egress proxy). */
  respond(url: string): SyntheticResponse | undefined;
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

export function buildSyntheticSite(job: ScanJob): SyntheticSite {
  const input = job.input.case === "tag" ? job.input.value : undefined;
  const creative = input?.creative;
  if (creative?.case === "bundle") {
    const files = new Map<string, Uint8Array>();
    for (const f of creative.value.files) files.set(f.path.replace(/^\/+/, ""), f.data);
    const entry = creative.value.entry.replace(/^\/+/, "");
    const entryUrl = new URL(`/${entry.split("/").map(encodeURIComponent).join("/")}`, SYNTHETIC_ORIGIN).href;
    return {
      entryUrl,
      markup: new TextDecoder().decode(files.get(entry) ?? new Uint8Array()),
      hostPageIsWrapper: false,
      respond(url) {
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
  let entryUrl = `${SYNTHETIC_ORIGIN}/`;
  const pageUrl = job.targeting?.pageUrl?.trim();
  if (pageUrl) {
    try {
      const u = new URL(pageUrl);
      if (u.protocol === "https:" || u.protocol === "http:") entryUrl = u.href;
    } catch {
      /* an unusable page_url falls back to the synthetic origin */
    }
  }
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
