import type { RequestRecord } from "../gatherers/network.ts";

const INSECURE = /^(http|ws):/i;

/**
 * SSL compliance: nothing the creative asked for went over plain http:// (or ws://). Judged on the URL as the
 * creative wrote it — Chromium silently upgrades http:// images and media on an https page and blocks http://
 * scripts, so the request alone would hide it; `mixedContent` (Audits) and `writtenUrl` carry what was written.
 */
export function sslCompliance(requests: RequestRecord[], mixedContent: string[] = []): { compliant: boolean; insecureUrls: string[] } {
  const insecure = new Set<string>();
  for (const r of requests) {
    if (INSECURE.test(r.url)) insecure.add(r.url);
    if (r.writtenUrl && INSECURE.test(r.writtenUrl)) insecure.add(r.writtenUrl);
  }
  for (const u of mixedContent) if (INSECURE.test(u)) insecure.add(u);
  return { compliant: insecure.size === 0, insecureUrls: [...insecure] };
}
