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
};

export function resolveLimits(overrides?: Partial<VastLimits>): VastLimits {
  const out: VastLimits = { ...DEFAULT_LIMITS };
  for (const [k, v] of Object.entries(overrides ?? {}) as Array<[keyof VastLimits, number | undefined]>) {
    if (typeof v === "number" && Number.isFinite(v) && v > 0) out[k] = v;
  }
  return out;
}
