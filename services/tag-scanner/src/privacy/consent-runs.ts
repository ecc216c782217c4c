import type { ScanJob } from "@cva/contracts";
import type { EgressProxy, OutboundPolicy } from "@cva/platform";
import type { Browser } from "puppeteer-core";
import type { DeviceProfile } from "../config.ts";
import type { ConsentRunArtifact } from "./artifact.ts";
import { runConsentState } from "./consent-run.ts";
import { consentStates } from "./consent-states.ts";

/**
 * The consent runs end this long after their watch at the latest (within the job's deadline): room for building
 * their contexts (a renderer start each: ~0.3 s on an idle machine, seconds on a loaded one), the drain and the reads.
 */
const SPARE_MS = 20_000;
/** A watch shorter than this would miss what a creative does right after load; the full run's render is usually longer. */
const MIN_WATCH_MS = 1_500;

/**
 * The three consent states' runs, together (each its own context on the scan's browser), started when the full run's
 * measure phase ends — not beside its render or measure, so that nothing the full run measures (first paint,
 * animation timing, layout, storage) shares the CPU with three renderer starts; they run while it stores its
 * screenshot and clicks through. Each watches as long as the full run's render watched.
 */
export function startConsentRuns(opts: {
  browser: Browser;
  startProxy: (policy: OutboundPolicy) => Promise<EgressProxy>;
  policy: OutboundPolicy;
  job: ScanJob;
  profile: DeviceProfile;
  renderMs: number;
  /** Local ms by which every run must have ended (the job's deadline less the report's margin). */
  deadline: number;
}): Promise<ConsentRunArtifact[]> {
  const watchMs = Math.max(MIN_WATCH_MS, opts.renderMs);
  const deadline = Math.min(opts.deadline, Date.now() + watchMs + SPARE_MS);
  return Promise.all(consentStates().map((state) => runConsentState({ ...opts, state, watchMs, deadline })));
}
