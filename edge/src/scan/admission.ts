import type { InFlightCap, InFlightCaps, Lane } from "./in-flight-caps.ts";
import { LANES_OF } from "./in-flight-caps.ts";
import { requestHash } from "./request-hash.ts";
import type { ReportKind, ScanRequest, ScanRequestFields, WithheldScanRequest } from "./types.ts";

// Admission: how many of a customer's scan requests this edge has in progress per lane, counted from the moment a
// request is authenticated — before its body is read — until it is answered. A request that finds its customer's
// count at the cap on one of its lanes is not kept: the JSON door reads its body as a stream it does not hold
// (validation/scan-body-reader.ts) and both doors hand it on withheld, to be answered like any other up to the
// reservation (payload → quota → a replay) and then refused, never scanned. So a customer at its cap — however many
// 13 MB bodies it sends — costs the edge no memory for them. The exact cap across edges stays auth's; this is the
// edge's own count, so a burst at one edge is bounded before auth is even asked.

export type Admitted = { release(): void };
export type AtCap = { atCap: InFlightCap };

export interface Admission {
  /** Counts a request of `kind` for the customer on each of its lanes, or says which lane is at its cap (not counted). */
  enter(customerId: string, kind: ReportKind): Admitted | AtCap;
  /** Requests in progress per lane of a customer (for tests and operators). */
  inProgress(customerId: string): Partial<Record<Lane, number>>;
}

export function createAdmission(deps: { caps: InFlightCaps }): Admission {
  const counts = new Map<string, Map<Lane, number>>();
  return {
    enter(customerId, kind) {
      const mine = counts.get(customerId) ?? new Map<Lane, number>();
      // Before the body is read its location is unknown (a tag's targeting.country): the widest cap of the kind,
      // all live workers counted, so a request is only withheld when no location could take it.
      for (const cap of deps.caps.capsFor(kind, undefined)) if ((mine.get(cap.lane) ?? 0) >= cap.max) return { atCap: cap };
      for (const lane of LANES_OF[kind]) mine.set(lane, (mine.get(lane) ?? 0) + 1);
      counts.set(customerId, mine);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          for (const lane of LANES_OF[kind]) {
            const n = (mine.get(lane) ?? 1) - 1;
            if (n > 0) mine.set(lane, n);
            else mine.delete(lane);
          }
          if (mine.size === 0 && counts.get(customerId) === mine) counts.delete(customerId);
        },
      };
    },
    inProgress: (customerId) => Object.fromEntries(counts.get(customerId) ?? []),
  };
}

/** A request held whole (gRPC: its message is read) made into its withheld form: the same digest, no payload. */
export function withhold(req: ScanRequest, cap: InFlightCap): WithheldScanRequest {
  const { html: _html, zip: _zip, file: _file, ...fields } = req as ScanRequest & { html?: string; zip?: Uint8Array; file?: unknown };
  return { ...(fields as ScanRequestFields), withheld: { requestHash: requestHash(req), lane: cap.lane, max: cap.max } };
}
