import type { RequestRecord } from "../gatherers/network.ts";

/** SSL compliance: no request of the creative went out over plain http:// (or ws://). */
export function sslCompliance(requests: RequestRecord[]): { compliant: boolean; insecureUrls: string[] } {
  const insecure = [...new Set(requests.filter((r) => /^(http|ws):/i.test(r.url)).map((r) => r.url))];
  return { compliant: insecure.length === 0, insecureUrls: insecure };
}
