import type { ScanJob } from "@cva/contracts";
import type { EgressProxy, OutboundPolicy } from "@cva/platform";
import type { Browser } from "puppeteer-core";
import type { DeviceProfile } from "../config.ts";
import type { ConsentRunArtifact } from "./artifact.ts";
import type { SyntheticSite } from "../synthetic-origin.ts";
import { runConsentState } from "./consent-run.ts";
import type { StatePlan } from "./consent-plan.ts";
import type { ConsentPages } from "./consent-pages.ts";

/**
 * The consent runs end this long after their watch at the latest (within the job's deadline): room for building
 * their contexts (a renderer start each: ~0.3 s on an idle machine, seconds on a loaded one), the drain and the reads.
 */
const SPARE_MS = 20_000;
/** A watch shorter than this would miss what a creative does right after load; the full run's render is usually longer. */
const MIN_WATCH_MS = 1_500;

/**
 * The consent states' runs as planned (consent-plan.ts): the states that must be rendered together (each its own
 * context on the scan's browser), the others derived from the full run — started when the full run's
 * measure phase ends — not beside its render or measure, so that nothing the full run measures (first paint,
 * animation timing, layout, storage) shares the CPU with three renderer starts; they run while it stores its
 * screenshot and clicks through. Each watches as long as the full run's render watched.
 */
export function startConsentRuns(opts: {
  browser: Browser;
  startProxy: (policy: OutboundPolicy) => Promise<EgressProxy>;
  policy: OutboundPolicy;
  job: ScanJob;
  /** The full run's site (a derived state's). */
  site: SyntheticSite;
  profile: DeviceProfile;
  plan: readonly StatePlan[];
  renderMs: number;
  /** Local ms by which every run must have ended (the job's deadline less the report's margin). */
  deadline: number;
  /** Consent pages built ahead on this browser (consent-pages.ts). */
  pages?: ConsentPages;
}): Promise<ConsentRunArtifact[]> {
  const watchMs = Math.max(MIN_WATCH_MS, opts.renderMs);
  const deadline = Math.min(opts.deadline, Date.now() + watchMs + SPARE_MS);
  const rendered = opts.plan.filter((p) => p.render).length;
  const ahead = opts.pages?.take(opts.browser, rendered) ?? [];
  const runs = Promise.all(opts.plan.map(async (p): Promise<ConsentRunArtifact> => {
    if (!p.render) return { state: p.state.name, site: opts.site, requests: [], storage: { cookies: [], localStorage: [] }, calls: [], watchedMs: 0, derived: p.derived };
    return { ...(await runConsentState({ ...opts, state: p.state, watchMs, deadline, prepared: ahead.shift() })), because: p.because };
  }));
  // This browser renders consent states: the next scan's pages are built once these runs are over (not beside them).
  if (rendered > 0 && opts.pages) void runs.finally(() => opts.pages!.refill(opts.browser, opts.startProxy, opts.policy));
  return runs;
}
