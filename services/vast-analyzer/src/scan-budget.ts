import type { ScanJob } from "@cva/contracts";
import { OutboundError } from "@cva/platform";

/*
 * One VAST scan's two budgets, shared by every phase that downloads or waits:
 *  - time: the job's deadline (less what assembling and publishing the report takes) bounds every wrapper fetch,
 *    overlay load and media probe, so a slow chain still ends in a report the requester receives, saying what was not
 *    reached and why;
 *  - bytes: one total for the scan's documents, overlay resources and media downloads. A download reserves its cap
 *    before it starts (it can never take more than it reserved) and settles what it really received when it ends.
 */

export const DEADLINE_REACHED = "the scan's deadline was reached";

/** The VAST URL itself could not be fetched before the deadline: no report can be made (a processing_error). */
export class ScanOutOfTimeError extends Error {
  override readonly name = "ScanOutOfTimeError";
  constructor() {
    super(`the VAST URL was not fetched: ${DEADLINE_REACHED}`);
  }
}

export interface ByteGrant {
  /** What the download may take, at most; 0 when the budget is spent. */
  readonly bytes: number;
  /** Returns the unused part of the grant (`used` is clamped to the grant). Once only. */
  settle(used: number): void;
}

export interface ScanBudget {
  /** Unix ms by which the report must be assembled. */
  readonly deadlineMs: number;
  readonly totalBytes: number;
  /**
   * What a phase whose own limit is `limitMs` may take now, leaving `keepMs` for what must still follow: `cut` when the
   * deadline, not the limit, sets it. 0 or less: no time left.
   */
  time(limitMs: number, keepMs?: number): { ms: number; cut: boolean };
  /** Bytes neither received nor reserved. */
  bytesFree(): number;
  /**
   * Reserves up to `wanted` bytes. Granted at once when that much is free, or when nothing else holds a reservation
   * (then whatever is free, maybe 0); otherwise it waits for a download in flight to settle, because a smaller grant
   * now could cut a file that fits once the others turn out smaller than their caps. It waits no longer than the
   * deadline.
   */
  reserve(wanted: number): Promise<ByteGrant>;
}

export function createScanBudget(opts: { deadlineMs: number; totalBytes: number }): ScanBudget {
  let spent = 0;
  let reserved = 0;
  let holders = 0;
  const waiters = new Set<() => void>();
  const free = () => Math.max(0, opts.totalBytes - spent - reserved);
  const wake = () => {
    for (const w of [...waiters]) w();
  };

  function grant(wanted: number): ByteGrant {
    const bytes = Math.max(0, Math.min(wanted, free()));
    reserved += bytes;
    holders++;
    let settled = false;
    return {
      bytes,
      settle(used: number) {
        if (settled) return;
        settled = true;
        reserved -= bytes;
        spent += Math.max(0, Math.min(used, bytes));
        holders--;
        wake();
      },
    };
  }

  return {
    deadlineMs: opts.deadlineMs,
    totalBytes: opts.totalBytes,
    time(limitMs, keepMs = 0) {
      const left = opts.deadlineMs - keepMs - Date.now();
      return left < limitMs ? { ms: Math.floor(left), cut: true } : { ms: limitMs, cut: false };
    },
    bytesFree: free,
    async reserve(wanted) {
      while (free() < wanted && holders > 0) {
        const left = opts.deadlineMs - Date.now();
        if (left <= 0) break;
        // Event-driven: the next settle wakes us; the deadline bounds the wait.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, left);
          function done() {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          }
          waiters.add(done);
        });
      }
      return grant(wanted);
    },
  };
}

/** Kept back from the job's deadline by default: evaluating the spec set and publishing the report. */
export const REPORT_RESERVE_MS = 2_000;

/**
 * The scan's deadline: the job's (set by the requester, who stops waiting then) less `reserveMs`; a job without one
 * (a direct call) gets `fallbackMs` from now.
 */
export function scanDeadline(job: ScanJob, opts: { reserveMs: number; fallbackMs: number }, now = Date.now()): number {
  const deadline = Number(job.deadlineUnixMs);
  return deadline > 0 ? deadline - opts.reserveMs : now + opts.fallbackMs;
}

/**
 * What a failed download must be charged: nothing when it failed before a body could arrive (refused, DNS, connect,
 * TLS handshake, redirects); its whole grant otherwise (cut at the cap, timed out or reset mid-body: how much arrived is
 * unknown, and a server must not be able to send a large body and break the connection to go uncounted).
 */
export function chargeForFailure(e: unknown, granted: number): number {
  if (!(e instanceof OutboundError)) return granted;
  if (["bad_url", "bad_scheme", "blocked_address", "dns", "connect_timeout", "too_many_redirects"].includes(e.code)) return 0;
  if (e.code === "connection" && /^(could not connect to|TLS handshake with) /.test(e.message)) return 0;
  return granted;
}

/** "600 MB", "2.5 MB", "250000 bytes" (MB = 2^20, as the limits are set). */
export function formatBytes(n: number): string {
  const MB = 1024 * 1024;
  return n >= MB ? `${Math.round((n / MB) * 10) / 10} MB` : `${n} bytes`;
}
