/** Bounds of one VAST analysis (CONTRACT §6). Every one is configurable; main.ts reads overrides from the env. */
export interface VastLimits {
  /** Largest VAST document accepted, bytes (CONTRACT §6: 2 MB). */
  maxXmlBytes: number;
  /** Wrapper redirects followed before the chain is cut (CONTRACT §6: 5). */
  maxWrapperRedirects: number;
  /** Deepest element nesting accepted in one document. */
  maxXmlDepth: number;
  /** Most elements accepted in one document. */
  maxXmlElements: number;
  /** TCP/TLS connect time-out of every fetch, ms. */
  connectTimeoutMs: number;
  /** Total time-out of one VAST document fetch, ms. */
  fetchTimeoutMs: number;
  /** HTTP redirects (3xx) followed by one document fetch. */
  maxHttpRedirects: number;
  /** Total time-out of one impression pixel, ms. */
  pixelTimeoutMs: number;
  /** Largest pixel body read, bytes (the body is discarded). */
  pixelMaxBytes: number;
  /** Impression pixels fired at most per scan. */
  maxImpressions: number;
  /** Pixels fired at the same time. */
  pixelConcurrency: number;
  /** Media files probed at the same time. */
  probeConcurrency: number;
  /** Media files probed at most per scan (the rest are listed without a probe). */
  maxProbedMediaFiles: number;
  /** Ads of a pod or buffet analysed at most (the rest are listed in ads[] with why). */
  maxAds: number;
  /**
   * Bytes one scan downloads at most: every document of the chains, overlay resources and media files together
   * (impression pixels, ≤ 256 KB each, are bounded on their own). See scan-budget.ts.
   */
  maxScanBytes: number;
  /** What one media download may reserve of that budget (the prober's own MEDIA_MAX_BYTES applies as well). */
  mediaFileMaxBytes: number;
  /** Kept back from the job's deadline to assemble and publish the report, ms. */
  reportReserveMs: number;
  /** The scan's time when its job carries no deadline (a direct call), ms. */
  scanTimeoutMs: number;
  /** Least time worth starting a media probe with, ms: below it the file is reported as not reached in time. */
  minProbeMs: number;
}

export const DEFAULT_LIMITS: VastLimits = {
  maxXmlBytes: 2 * 1024 * 1024,
  maxWrapperRedirects: 5,
  maxXmlDepth: 64,
  maxXmlElements: 20_000,
  connectTimeoutMs: 5_000,
  fetchTimeoutMs: 10_000,
  maxHttpRedirects: 5,
  pixelTimeoutMs: 5_000,
  pixelMaxBytes: 256 * 1024,
  maxImpressions: 50,
  pixelConcurrency: 6,
  probeConcurrency: 3,
  maxProbedMediaFiles: 24,
  maxAds: 10,
  // Three probes at a time with a 200 MB cap each: the budget never slows a scan before 600 MB have really arrived. A
  // 30 s ad's whole rendition ladder is far below (1080p at 8 Mb/s is 30 MB; a 4K rendition at 20 Mb/s, 75 MB), while
  // without it one VAST could make the service fetch 24 x 200 MB of media plus its documents.
  maxScanBytes: 600 * 1024 * 1024,
  mediaFileMaxBytes: 200 * 1024 * 1024,
  reportReserveMs: 2_000,
  scanTimeoutMs: 90_000,
  minProbeMs: 2_500,
};

export function resolveLimits(overrides?: Partial<VastLimits>): VastLimits {
  const out: VastLimits = { ...DEFAULT_LIMITS };
  for (const [k, v] of Object.entries(overrides ?? {}) as Array<[keyof VastLimits, number | undefined]>) {
    if (typeof v === "number" && Number.isFinite(v) && v > 0) out[k] = v;
  }
  return out;
}
