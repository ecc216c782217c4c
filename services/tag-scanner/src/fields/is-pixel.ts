import type { RequestRecord } from "../gatherers/network.ts";

const TINY_BODY = 100;

/**
 * A measurement (tracking) pixel: an image request whose image is at most 1x1 — size read from the body's own
 * header (GIF/PNG/WebP/JPEG) — or, when the body could not be read, an image answer of at most ~100 bytes
 * (a 1x1 GIF is 35-43 bytes; no real picture is that small), or an image request answered 204 No Content.
 * The host does not matter: a first-party 1x1 beacon counts as a pixel too.
 */
export function isPixel(r: RequestRecord): boolean {
  if (r.resourceType !== "image" && r.resourceType !== "ping") return false;
  if (r.status === undefined || r.status >= 400) return false;
  if (r.resourceType === "ping") return true;
  if (r.status === 204) return true;
  if (r.imageSize) return r.imageSize.width <= 1 && r.imageSize.height <= 1;
  return r.finished && r.bodyBytes <= TINY_BODY && /gif|png|webp|image/.test(r.mimeType ?? "");
}
