import type { DeviceProfile, ScanTimeouts } from "../config.ts";
import { runPhase, type GatherError } from "../gatherers/gatherer.ts";
import { watchRender } from "../gatherers/render-watch.ts";
import { MRAID_ENV_JS } from "../mraid-host.ts";
import type { PreparedPage } from "../prepared-page.ts";
import type { SyntheticSite } from "../synthetic-origin.ts";
import { bounded } from "../util.ts";

/**
 * How much of an endless creative's motion the flash analysis sees: 2.5 s from its first changed frame, the last
 * 1.2 s of it with no frame late (flashes.ts), at most 8 s more than the watch took.
 */
const FLASH_COVER = { ms: 2_500, cleanMs: 1_200, maxMs: 8_000 };

export interface RenderPhaseArtifact {
  /** Local ms when the navigation to the creative started: the render's origin. */
  startedAt: number;
  /** Local ms when the render watch gave its verdict. */
  endedAt: number;
  /** The watch's verdict: whether the creative was still moving at the end, what ended the watch, its probes. */
  watch: Awaited<ReturnType<typeof watchRender>>;
  /** The page never fired `load`, crashed, or the scan was aborted. */
  timedOut: boolean;
  /** Gatherers that failed as the render began or ended (the scan goes on without them). */
  errors: GatherError[];
}

/**
 * The render phase: the gatherers begin (screencast, the CPU mark), the page navigates to the creative, and the
 * render watch watches until it proves the creative calm (or endless), or the deadline. `afterRender` runs the moment
 * the watch ends (the scanner prepares the slot's next page then, not while this one renders).
 */
export async function renderPhase(prepared: PreparedPage, opts: {
  site: SyntheticSite;
  profile: DeviceProfile;
  deadline: number;
  timeouts: Pick<ScanTimeouts, "settleMs" | "holdMs" | "rafHoldMs">;
  signal?: AbortSignal;
  log?: { warn(obj: object, msg?: string): void };
  afterRender(): void;
}): Promise<RenderPhaseArtifact> {
  const { client, gatherers, events, signals, net, perf, screencast, worlds } = prepared;
  const { site, profile, signal } = opts;
  prepared.site.current = site;
  const [begun] = await Promise.all([
    runPhase(gatherers, "beginRender", { scan: { viewport: { width: profile.width, height: profile.height } } }),
    // An MRAID webview has MRAID_ENV before the ad's markup runs (mraid-host.ts); a prepared page is used once.
    site.inApp ? client.send("Page.addScriptToEvaluateOnNewDocument", { source: MRAID_ENV_JS }).catch(() => {}) : undefined,
  ]);

  const startedAt = Date.now();
  const navigation = client.send("Page.navigate", { url: site.entryUrl }).catch((err: unknown) => {
    opts.log?.warn({ err: String(err) }, "navigation failed");
  });
  await bounded(navigation, Math.max(0, opts.deadline - Date.now()), undefined);
  const watch = await watchRender({
    worlds, realms: signals.realms, screencast,
    network: { busy: () => net.busy(), animatedImages: () => net.animatedImages(), requestCount: () => net.artifact.requests.length },
    page: { loadLocal: () => events.artifact.loadLocal, loaded: () => events.artifact.loadTs !== undefined, crashed: () => events.artifact.crashed },
    onTick: (now) => perf.tick(now),
    pingEvent: signals.pingEvent,
  }, { settleMs: opts.timeouts.settleMs, holdMs: opts.timeouts.holdMs, rafHoldMs: opts.timeouts.rafHoldMs }, startedAt, opts.deadline, signal);
  const endedAt = Date.now();
  // An endless mover is known at once; its flashes need frames over a whole second and more (any one second of it).
  // Before the next page is prepared: a renderer starting beside the capture would delay its frames.
  if (watch.stillMoving) await prepared.flashes.cover({ ...FLASH_COVER, deadline: opts.deadline, signal });
  opts.afterRender();
  const timedOut = events.artifact.loadTs === undefined || events.artifact.crashed || !!signal?.aborted;
  const ended = await runPhase(gatherers, "endRender");
  return { startedAt, endedAt, watch, timedOut, errors: [...begun, ...ended] };
}
