import { OutboundError, safeDownload, type OutboundPolicy } from "@cva/platform";

export interface DownloadFacts {
  httpCode: number;
  fileSize: number;
  downloadTimeMs: number;
  /** MB/s, MB = 10^6 bytes. */
  downloadSpeed: number;
  /** Client-safe reason when the file is not usable; undefined when it is on disk and the answer was 2xx. */
  error?: string;
  /**
   * Bytes received over the network, for the requester's byte budget: the body's size when it was read whole, the cap
   * when the body was cut at it, nothing when no connection was made; a download cut by its time-out is counted at
   * the cap (how much had arrived is not known), so the budget is never under-counted.
   */
  receivedBytes: number;
}

/** Why the download's size cap is what it is: the prober's own limit, or what the requester's scan budget had left. */
export type CapSource = "limit" | "scan_budget";

/**
 * Outbound failures before any byte of a body could arrive: refused, unresolvable, unconnectable, redirected too often.
 * A connection that broke later (a reset mid-body) may have delivered up to the cap, and is counted so: otherwise a
 * server could send 199 MB and reset, file after file, and never be charged.
 */
function receivedNothing(e: OutboundError): boolean {
  if (["bad_url", "bad_scheme", "blocked_address", "dns", "connect_timeout", "too_many_redirects"].includes(e.code)) return true;
  return e.code === "connection" && /^(could not connect to|TLS handshake with) /.test(e.message);
}

/**
 * Downloads under the outbound policy (resolved address checked at connect time and on every redirect), streamed to
 * `filePath` with the size and time limits. Never throws for what the remote side did: a refused address, a timeout,
 * a too-large body or a non-2xx answer come back as `error` with whatever was measured. Only the caller's abort throws.
 */
export async function downloadMedia(
  url: string,
  filePath: string,
  opts: {
    policy: OutboundPolicy; maxBytes: number; timeoutMs: number; signal?: AbortSignal;
    /** Who set maxBytes (the error says so); "limit" by default. */
    capSource?: CapSource;
    /** The time-out is the scan's deadline, not the download limit (the error says so). */
    deadlineCut?: boolean;
  },
): Promise<DownloadFacts> {
  const started = performance.now();
  try {
    const res = await safeDownload(url, filePath, {
      policy: opts.policy,
      maxBytes: opts.maxBytes,
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      headers: { accept: "video/*, audio/*;q=0.9, */*;q=0.5" },
    });
    const seconds = Math.max(res.timeMs, 1) / 1000;
    const facts: DownloadFacts = {
      httpCode: res.status,
      fileSize: res.bytes,
      downloadTimeMs: Math.round(res.timeMs),
      downloadSpeed: round3(res.bytes / 1e6 / seconds),
      receivedBytes: res.bytes,
    };
    if (res.status < 200 || res.status > 299) {
      facts.error = `media download failed: HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`;
    }
    return facts;
  } catch (e) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? e;
    const downloadTimeMs = Math.round(performance.now() - started);
    const base = { httpCode: 0, fileSize: 0, downloadTimeMs, downloadSpeed: 0 };
    if (e instanceof OutboundError) {
      const msg =
        e.code === "too_large"
          ? opts.capSource === "scan_budget"
            ? `media download stopped at ${formatBytes(opts.maxBytes)}: the scan's byte budget was reached`
            : `media file is larger than the limit of ${formatBytes(opts.maxBytes)}`
        : e.code === "timeout"
          ? opts.deadlineCut
            ? "media download stopped: the scan's deadline was reached"
            : `media download timed out after ${Number((opts.timeoutMs / 1000).toFixed(1))} s`
        : `media download failed: ${e.message}`;
      return { ...base, error: msg, receivedBytes: receivedNothing(e) ? 0 : opts.maxBytes };
    }
    // Anything else (a local write failure, a bug): say little to the client; the caller logs the detail.
    return { ...base, error: "media download failed", receivedBytes: opts.maxBytes };
  }
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

function formatBytes(n: number): string {
  const MB = 1024 * 1024;
  return n >= MB ? `${Math.round((n / MB) * 10) / 10} MB` : `${n} bytes`;
}
