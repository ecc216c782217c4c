import { OutboundError, safeDownload, type OutboundPolicy } from "@cva/platform";

export interface DownloadFacts {
  httpCode: number;
  fileSize: number;
  downloadTimeMs: number;
  /** MB/s, MB = 10^6 bytes. */
  downloadSpeed: number;
  /** Client-safe reason when the file is not usable; undefined when it is on disk and the answer was 2xx. */
  error?: string;
}

/**
 * Downloads under the outbound policy (resolved address checked at connect time and on every redirect), streamed to
 * `filePath` with the size and time limits. Never throws for what the remote side did: a refused address, a timeout,
 * a too-large body or a non-2xx answer come back as `error` with whatever was measured. Only the caller's abort throws.
 */
export async function downloadMedia(
  url: string,
  filePath: string,
  opts: { policy: OutboundPolicy; maxBytes: number; timeoutMs: number; signal?: AbortSignal },
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
        e.code === "too_large" ? `media file is larger than the limit of ${formatBytes(opts.maxBytes)}`
        : e.code === "timeout" ? `media download timed out after ${Number((opts.timeoutMs / 1000).toFixed(1))} s`
        : `media download failed: ${e.message}`;
      return { ...base, error: msg };
    }
    // Anything else (a local write failure, a bug): say little to the client; the caller logs the detail.
    return { ...base, error: "media download failed" };
  }
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

function formatBytes(n: number): string {
  const MB = 1024 * 1024;
  return n >= MB ? `${Math.round((n / MB) * 10) / 10} MB` : `${n} bytes`;
}
