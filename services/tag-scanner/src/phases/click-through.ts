import type { ScanTimeouts } from "../config.ts";
import { runPhase, type GatherError } from "../gatherers/gatherer.ts";
import { captureLandingPage, type LandingArtifact } from "../gatherers/landing-page.ts";
import type { PreparedPage } from "../prepared-page.ts";
import { bounded } from "../util.ts";

export interface ClickThroughArtifact {
  /** What the click did (v3 `capture_landing_page` only). */
  landing?: LandingArtifact;
  /** Gatherers that failed as the creative's part ended. */
  errors: GatherError[];
}

const noLanding = (evidence: string): LandingArtifact => ({ tab: "none", url: "", title: "", working: false, evidence });

/**
 * The click-through (v3): the creative's part ends for every gatherer first — what follows is the landing page's:
 * its requests, console and mixed content are left out of the report — then, when there is something to click and
 * time to do it, a trusted click where a user would and what it opens.
 */
export async function clickThroughPhase(prepared: PreparedPage, opts: {
  capture: boolean;
  /** The page answered the measuring phase. */
  responsive: boolean;
  /** Where to click (the layout probe's choice), viewport CSS px. */
  click: { x: number; y: number } | null | undefined;
  touch: boolean;
  timeouts: Pick<ScanTimeouts, "landingMs" | "stepMs">;
  /** Local ms by which the job's report must be on its way. */
  jobDeadline: number;
}): Promise<ClickThroughArtifact> {
  const { client, context, worlds, mainFrameId, gatherers, interception, net, signals } = prepared;
  const { landingMs: maxMs, stepMs } = opts.timeouts;
  const errors = await runPhase(gatherers, "endCreative");
  if (!opts.capture) return { errors };
  const click = opts.click;
  if (!opts.responsive || !click) return { landing: noLanding("nothing to click"), errors };
  const landingMs = Math.min(maxMs, opts.jobDeadline - Date.now() - stepMs);
  if (landingMs < 1_000) return { landing: noLanding("no time left before the job's deadline"), errors };
  const fromMs = Date.now();
  // A bound that ran out is the machine's delay as much as the page's (LandingArtifact.unfinished).
  const gaveUp = (evidence: string): LandingArtifact => ({ ...noLanding(evidence), unfinished: { fromMs, toMs: Date.now() } });
  prepared.popups.close = false;
  interception.allowClickNavigation();
  const landing = await bounded(
    captureLandingPage({
      // Puppeteer's Page (the landing's reads and shot) only if the click navigates the tab itself.
      target: prepared.target, page: () => prepared.page(), client, context, worlds, mainFrameId, point: click, touch: opts.touch,
      waitMs: landingMs, stepMs,
      nextTopNavigation: interception.nextTopNavigation,
      inflightSince: (i) => net.inflightSince(i),
      requestCount: () => net.artifact.requests.length,
      clickTimers: () => signals.realms.afterClick(),
      clickLoop: (since) => signals.realms.clickLoop(since),
    }),
    landingMs + stepMs * 2,
    undefined,
  );
  return { landing: landing ?? gaveUp("landing step timed out"), errors };
}
