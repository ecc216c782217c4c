import type { RequestRecord } from "../gatherers/network.ts";
import type { StorageArtifact } from "../gatherers/storage.ts";
import type { SyntheticSite } from "../synthetic-origin.ts";

/** One consent API call kind seen in a run: api + command + whether by postMessage, with its count. */
export interface ConsentCall { api: string; command: string; post: boolean; count: number }

/** What one consent state's run saw: the privacy summary's inputs (no screenshots, layout or timing). */
export interface ConsentRunArtifact {
  state: string;
  site: SyntheticSite;
  requests: RequestRecord[];
  storage: StorageArtifact;
  calls: ConsentCall[];
  watchedMs: number;
  /** Set when the run failed or was cut short. */
  error?: string;
  /** Why the state was rendered (consent-plan.ts). */
  because?: string;
  /**
   * Set when the state was not rendered: why it is derived from the full no_cmp run (consent-plan.ts). Its requests,
   * storage and calls are then the full run's, filled in by the report (report-field.ts).
   */
  derived?: string;
}
