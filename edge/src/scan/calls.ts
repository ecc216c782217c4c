import { processingError, type ApiError } from "../errors.ts";
import type { EdgeConfig } from "../ports.ts";

// What every call of the edge to auth and report-store shares: its time-out, the Retry-After of the answers, and
// the one answer for a dependency that does not respond.

export const DEFAULT_RPC_TIMEOUT_MS = 5_000;

export interface CallSettings {
  /** Bound on every auth / report-store call. */
  rpcTimeoutMs: number;
  /** Retry-After seconds of a processing_error. */
  retryAfter: number | undefined;
  /** PUBLIC_BASE_URL without a trailing slash: the prefix of every URL written into a report. */
  publicBase: string;
  /**
   * A reservation outlives the scan's time-out by the calls that store the report and commit it (plus one of
   * slack): a scan the edge still finishes is committed before the reaper may refund it.
   */
  reservationTtlMs: number;
  /** processing_error "<what> is unavailable; retry later" (the detail only in the log). */
  unavailable(what: string): ApiError;
}

export function callSettings(config: EdgeConfig): CallSettings {
  const rpcTimeoutMs = config.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
  const retryAfter = config.retryAfterSeconds;
  return {
    rpcTimeoutMs,
    retryAfter,
    publicBase: config.publicBaseUrl.replace(/\/+$/, ""),
    reservationTtlMs: config.scanTimeoutMs + 3 * rpcTimeoutMs,
    unavailable: (what) => processingError(`${what} is unavailable; retry later`, retryAfter),
  };
}
