import type { RequestRecord } from "../gatherers/network.ts";

export interface MissingAssetValue { url: string; status: number; resourceType: string; reason: string }

/** Every subresource that answered 4xx/5xx or failed without an answer (requests the page itself canceled are not). */
export function missingAssets(requests: RequestRecord[]): MissingAssetValue[] {
  const out: MissingAssetValue[] = [];
  for (const r of requests) {
    // An error status counts even when Blink then aborted the body (it does so for a 404 script).
    if (r.status !== undefined && r.status >= 400)
      out.push({ url: r.url, status: r.status, resourceType: r.resourceType, reason: r.statusText || `HTTP ${r.status}` });
    else if (r.status === undefined && r.failure && !r.canceled)
      out.push({ url: r.url, status: 0, resourceType: r.resourceType, reason: r.failure });
  }
  return out;
}
