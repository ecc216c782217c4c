import type { RequestRecord } from "../gatherers/network.ts";
import type { StorageArtifact } from "../gatherers/storage.ts";
import type { SyntheticSite } from "../synthetic-origin.ts";
import type { ConsentRunArtifact } from "./artifact.ts";
import { summarisePrivacy } from "./summary.ts";
import { vendorDb, type VendorDb } from "./vendors.ts";

/**
 * The report's `privacy` (proto Privacy) from the full run (no_cmp: its creative requests, cookies and localStorage)
 * and the consent runs (theirs, with our host page and the placement's files left out as in the full run, by
 * `creativeRequests`).
 */
export function privacyField(input: {
  site: SyntheticSite;
  /** The full run's creative requests. */
  requests: RequestRecord[];
  storage: StorageArtifact;
  watchedMs: number;
  consentRuns: ConsentRunArtifact[];
  vendors?: VendorDb;
  allowedDomains?: readonly string[];
  /** What the full run saw the creative look for (consent-sensor.ts). */
  signalsSeen?: readonly string[];
  creativeRequests(run: { site: SyntheticSite; requests: RequestRecord[] }): RequestRecord[];
}) {
  const noCmp = { state: "no_cmp", site: input.site, requests: input.requests, storage: input.storage, calls: [], watchedMs: input.watchedMs };
  const s = summarisePrivacy({
    db: input.vendors ?? vendorDb(),
    allowedDomains: input.allowedDomains ?? [],
    signalsSeen: input.signalsSeen ?? [],
    states: [
      noCmp,
      // A derived state is the full run's data judged under that state's consent (consent-plan.ts says why).
      ...input.consentRuns.map((r) => (r.derived !== undefined
        ? { ...noCmp, state: r.state, derivedFrom: "no_cmp", derivedReason: r.derived }
        : { ...r, requests: input.creativeRequests(r), renderedBecause: r.because ?? "" })),
    ],
  });
  return {
    ...s,
    consentMacros: s.consentMacros.map((m) => ({
      ...m, ...(m.hostVendor ? { hostVendor: { name: m.hostVendor.name, category: m.hostVendor.category, gvlId: m.hostVendor.gvlId } } : {}),
    })),
  };
}
