// When a scan runs the creative a second time under Chrome's Heavy Ad Intervention (issue 21 §4).
//
// Chrome unloads an ad frame that uses more than 4 MB of network, more than 15 s of main-thread CPU in any 30 s, or
// more than 60 s of CPU in all (Chromium's heavy_ad_thresholds: kMaxNetworkBytesForHeavyAd 4 MiB,
// kMaxPeakWindowedPercent 50 % of a 30 s window, kMaxCpuTime 60 s), measured on the machine it runs on. The first run
// measured the same creative on this host: one that stayed below half of every limit cannot reach a limit in the
// scan's time, so the second run — up to 30 s of a renderer — is made only for a creative that came within half of
// one. Half, not the limit itself, because the ad frame's figures differ from the inline run's (a frame's own
// document, Chrome's accounting of cached and intercepted bytes) and Chrome's CPU window is longer than our render.

export const CHROME_HEAVY_AD_LIMITS = {
  networkBytes: 4 * 1024 * 1024,
  cpuPeakMs: 15_000,
  cpuPeakWindowMs: 30_000,
  cpuTotalMs: 60_000,
} as const;

export interface FirstRun {
  /** Bytes the creative loaded (every request's encoded bytes). */
  bytes: number;
  /** The renderer main thread's CPU during the render, ms on this host. */
  cpuMs: number;
  /** How long the render watched, ms. */
  renderMs: number;
}

const mb = (b: number) => `${(b / (1024 * 1024)).toFixed(1)} MB`;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Why the second run is worth making, or undefined with `detail` saying why not. */
export function heavyAdCheck(first: FirstRun): { run: boolean; detail: string } {
  const L = CHROME_HEAVY_AD_LIMITS;
  if (first.bytes >= L.networkBytes / 2) return { run: true, detail: `the first run loaded ${mb(first.bytes)} (Chrome's limit: 4 MB)` };
  if (first.cpuMs >= L.cpuPeakMs / 2) return { run: true, detail: `the first run used ${s(first.cpuMs)} of CPU (Chrome's limit: 15 s in 30 s)` };
  // At the first run's rate, a 30 s window would hold half of the peak limit or more.
  const rate = first.renderMs > 0 ? first.cpuMs / first.renderMs : 0;
  if (rate * L.cpuPeakWindowMs >= L.cpuPeakMs / 2) {
    return { run: true, detail: `the first run used ${s(first.cpuMs)} of CPU in ${s(first.renderMs)} (${Math.round(rate * 100)} % of a core; Chrome's limit: 50 % over 30 s)` };
  }
  return {
    run: false,
    detail: `not run in an ad frame: the first run stayed below half of every limit of Chrome's (${mb(first.bytes)} of 4 MB, ${s(first.cpuMs)} of CPU in ${s(first.renderMs)})`,
  };
}
