import { Device, type ScanJob } from "@cva/contracts";

/** Time bounds of one scan, all in milliseconds. */
export interface ScanTimeouts {
  /** From navigation start until the render phase ends, whatever the page does (CONTRACT §6: 30 s). */
  renderMs: number;
  /**
   * How long the pixels must stay unchanged while only a repeating source is alive (a rAF ticker, an interval, a
   * timer chain — GSAP and Adobe Animate keep theirs running through storyboard holds and after the end) before the
   * animation counts as finished; grows to 1.5x the source's own period. 4.5 s covers the 3–4 s holds banners use.
   */
  holdMs: number;
  /**
   * The hold while a requestAnimationFrame loop is alive and no animation library (GSAP, CreateJS) vouches for its
   * timeline: a ticker has no period to judge by, and storyboards hold a frame up to 10 s before their next tween;
   * 11.5 s leaves a loaded machine 1.5 s for that tween's first frame. A GSAP timeline is read exactly, however long
   * its holds; an Adobe Animate root clip that stopped brings the hold back to `holdMs`.
   */
  rafHoldMs: number;
  /**
   * The stillness that suffices when nothing at all is scheduled or repeating in any frame (no pending timeout,
   * interval, rAF loop, finite animation, playing video or GIF frame left).
   */
  settleMs: number;
  /** Bound of each measuring call into the page after the render phase (screenshots, DOM reads, metrics). */
  stepMs: number;
  /** How long to wait for a click-through to open and load its landing page. */
  landingMs: number;
}

export const DEFAULT_TIMEOUTS: ScanTimeouts = { renderMs: 30_000, holdMs: 4_500, rafHoldMs: 11_500, settleMs: 300, stepMs: 5_000, landingMs: 10_000 };

/** The reserved `.invalid` TLD (RFC 2606) can never resolve, so only our interception can ever answer it. */
export const SYNTHETIC_ORIGIN = "https://creative.cva.invalid";

export interface DeviceProfile {
  device: "Desktop" | "Mobile";
  width: number;
  height: number;
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  userAgent: string;
  platform: string;
  language: string;
}

/**
 * Desktop: 1366x768 at DPR 1 — the most common laptop viewport and wide enough for every IAB size (970 px max),
 * while keeping screencast frames cheap on small workers. Mobile: 390x844 at DPR 3 (a current mid-size phone).
 * The UA claims the Chromium major we really run (no "HeadlessChrome", which ad servers refuse to serve).
 */
export function deviceProfile(job: ScanJob, chromeMajor: string): DeviceProfile {
  const t = job.targeting;
  // Only Accept-Language characters: the value becomes a request header.
  const language = (t?.language || "").replace(/[^A-Za-z0-9,;=.\- *]/g, "").trim().slice(0, 200) || "en-US";
  if (t?.device === Device.MOBILE) {
    return {
      device: "Mobile", width: 390, height: 844, deviceScaleFactor: 3, isMobile: true, hasTouch: true, language,
      platform: "Android",
      userAgent: `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${chromeMajor}.0.0.0 Mobile Safari/537.36`,
    };
  }
  return {
    device: "Desktop", width: 1366, height: 768, deviceScaleFactor: 1, isMobile: false, hasTouch: false, language,
    platform: "Windows",
    userAgent: `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${chromeMajor}.0.0.0 Safari/537.36`,
  };
}

/** navigator.language wants one tag; Accept-Language may carry a list with q-values. */
export function primaryLanguage(acceptLanguage: string): string {
  return acceptLanguage.split(",")[0]!.split(";")[0]!.trim() || "en-US";
}
