import type { Protocol } from "puppeteer-core";

/** Why Chrome unloaded an ad frame, in the report's words. */
export type HeavyAdReason = "network" | "cpu_total" | "cpu_peak";

/** Chrome's HeavyAdIssue reasons (Audits.HeavyAdReason) → ours: > 4 MB, > 60 s of CPU, > 15 s of CPU in 30 s. */
const REASONS: Record<Protocol.Audits.HeavyAdReason, HeavyAdReason> = {
  NetworkTotalLimit: "network",
  CpuTotalLimit: "cpu_total",
  CpuPeakLimit: "cpu_peak",
};

export interface HeavyAdOutcome {
  intervened: boolean;
  /** "" when Chrome did not intervene. */
  reason: HeavyAdReason | "";
}

/**
 * Chrome's intervention as DevTools reports it (Audits.issueAdded with heavyAdIssueDetails). Only a HeavyAdBlocked
 * resolution counts: HeavyAdWarning is what Chrome sends where the intervention is reported but not enforced.
 */
export function heavyAdFromIssue(issue: Protocol.Audits.InspectorIssue): HeavyAdOutcome | undefined {
  const d = issue.details.heavyAdIssueDetails;
  if (issue.code !== "HeavyAdIssue" || !d || d.resolution !== "HeavyAdBlocked") return undefined;
  return { intervened: true, reason: REASONS[d.reason] ?? "" };
}

/** The heavy-ad run's outcome (heavy-ad/run.ts), as the report carries it (TagReport.heavy_ad). */
export interface HeavyAdRun extends HeavyAdOutcome {
  /** The second run in an ad frame was made. */
  checked: boolean;
  watchedMs: number;
  detail: string;
}
