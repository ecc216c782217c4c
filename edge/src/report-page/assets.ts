import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";
import { DOCS_CSS, DOCS_CSS_NAME, DOCS_INIT_JS, DOCS_INIT_NAME } from "./docs.ts";
import { REPORT_CSS, REPORT_CSS_NAME, REPORT_ICON_NAME, REPORT_ICON_SVG } from "./style.ts";
import { SWAGGER_UI_FILES, SWAGGER_UI_VERSION, swaggerUiFile } from "./swagger-ui.ts";

// The static files of the report page and /docs, each at a path that changes with its content (a digest, or the
// Swagger UI version), so they are cached for a year. Loaded and gzipped once, on first request, off the event loop
// (gzip of the 1.7 MB Swagger UI bundle takes ~0.4 s of CPU: 1.73 MB → 0.46 MB).

export interface PageAsset {
  path: string;
  contentType: string;
  load: () => Promise<Buffer>;
}

const gzipAsync = promisify(gzip);
const cache = new Map<string, Promise<{ body: Buffer; gzip: Buffer }>>();

function loaded(asset: PageAsset): Promise<{ body: Buffer; gzip: Buffer }> {
  let hit = cache.get(asset.path);
  if (!hit) {
    hit = asset.load().then(async (body) => ({ body, gzip: await gzipAsync(body, { level: 9 }) }));
    // A failed load is tried again on the next request rather than remembered.
    hit.catch(() => cache.delete(asset.path));
    cache.set(asset.path, hit);
  }
  return hit;
}

export const REPORT_ASSETS: PageAsset[] = [
  { path: `/r/assets/${REPORT_CSS_NAME}`, contentType: "text/css; charset=utf-8", load: async () => Buffer.from(REPORT_CSS) },
  { path: `/r/assets/${REPORT_ICON_NAME}`, contentType: "image/svg+xml", load: async () => Buffer.from(REPORT_ICON_SVG) },
];

export const DOCS_ASSETS: PageAsset[] = [
  { path: `/docs/assets/${DOCS_INIT_NAME}`, contentType: "text/javascript; charset=utf-8", load: async () => Buffer.from(DOCS_INIT_JS) },
  { path: `/docs/assets/${DOCS_CSS_NAME}`, contentType: "text/css; charset=utf-8", load: async () => Buffer.from(DOCS_CSS) },
  { path: `/docs/assets/${REPORT_ICON_NAME}`, contentType: "image/svg+xml", load: async () => Buffer.from(REPORT_ICON_SVG) },
  ...Object.entries(SWAGGER_UI_FILES).map(([name, contentType]) => ({
    path: `/docs/assets/swagger-ui-${SWAGGER_UI_VERSION}/${name}`,
    contentType,
    load: () => swaggerUiFile(name as keyof typeof SWAGGER_UI_FILES),
  })),
];

export async function sendAsset(req: FastifyRequest, reply: FastifyReply, asset: PageAsset): Promise<FastifyReply> {
  const { body, gzip: zipped } = await loaded(asset);
  const accepts = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
  reply
    .header("content-type", asset.contentType)
    .header("cache-control", "public, max-age=31536000, immutable")
    .header("x-content-type-options", "nosniff")
    .header("vary", "accept-encoding");
  if (accepts) reply.header("content-encoding", "gzip");
  return reply.send(accepts ? zipped : body);
}

/**
 * The report page's CSP: nothing but our stylesheet and our artifact images. No script at all, no style attribute
 * (positions in the page are SVG attributes), no form, no frame, no base.
 */
export function reportPageCsp(publicBaseUrl: string): string {
  return `default-src 'none'; style-src 'self'; img-src 'self' ${originOf(publicBaseUrl)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`.replace(/ +;/g, ";");
}

/**
 * /docs: Swagger UI's script and stylesheet from our origin; it fetches openapi.json and, for "try it out", calls the
 * API at the document's server URL. Its stylesheet embeds its icons as data: URIs.
 */
export function docsCsp(publicBaseUrl: string): string {
  const api = originOf(publicBaseUrl);
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ${api}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`.replace(/ +;/g, ";");
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}
