import { create } from "@bufbuild/protobuf";
import { ScanJobSchema, type ScanJob, type TagReport } from "@cva/contracts";
import {
  machineCpu, machineRam, startEgressProxy,
  type ArtifactSink, type EgressProxy, type OutboundPolicy,
} from "@cva/platform";
import type { Server } from "node:net";
import type { BrowserPool } from "./browser-pool.ts";
import { DEFAULT_TIMEOUTS, SYNTHETIC_ORIGIN, deviceProfile, type DeviceProfile, type ScanTimeouts } from "./config.ts";
import { runPhase } from "./gatherers/gatherer.ts";
import { MAX_SHOT_CSS } from "./gatherers/measure.ts";
import { accessibilityPhase, loadAxeTop, pauseControl } from "./phases/accessibility.ts";
import { storeFilmStrip } from "./film-strip-images.ts";
import { clickThroughPhase } from "./phases/click-through.ts";
import { measurePhase, responsivePhase } from "./phases/measure.ts";
import { renderPhase } from "./phases/render.ts";
import { BrowserWedgedError, preparePage, type PreparedPage } from "./prepared-page.ts";
import { buildTagReport, type StoredImages, type TagArtifacts } from "./report.ts";
import { createLoopLag } from "./gatherers/loop-lag.ts";
import { createImageWork, type ImageWork } from "./image-work.ts";
import { createPageOriginGuard } from "./page-origin.ts";
import { buildSyntheticSite, hostPageUrl } from "./synthetic-origin.ts";
import { createWarmPages, type PageLease } from "./warm-pages.ts";
import { createCpuSpeedometer, REFERENCE_DEVICE, type CpuCalibration, type CpuSpeedometer } from "./cpu-calibration.ts";
import { bounded } from "./util.ts";
import type { ConsentRunArtifact } from "./privacy/artifact.ts";
import { planConsentStates } from "./privacy/consent-plan.ts";
import { startConsentRuns } from "./privacy/consent-runs.ts";
import { buildConsentPage, createConsentPages } from "./privacy/consent-pages.ts";
import { consentStates as extraStates } from "./privacy/consent-states.ts";
import { vendorDb, type VendorDb } from "./privacy/vendors.ts";
import { runHeavyAd, type HeavyAdRun } from "./heavy-ad/run.ts";
import { firstRunTasks, heavyAdCheck, type FirstRun } from "./heavy-ad/trigger.ts";
import type { SyntheticSite } from "./synthetic-origin.ts";

/** The browser under a scan died or wedged: the scan is worth one more try on a browser of its own. */
export class BrowserLostError extends Error {
  constructor(detail: string) {
    super(`the scan's browser was lost: ${detail}`);
    this.name = "BrowserLostError";
  }
}

/**
 * How long axe-core's load into the top frame waits for the consent sensor's Debugger to go off: its settle is a round
 * trip and the reads of scripts still pending (none, mostly: they are read as they parse), its release one more.
 */
const AXE_WAITS_FOR_SENSOR_MS = 250;

/** A retry on a browser of its own needs a browser start and a render: not worth starting with less time left. */
const MIN_RETRY_MS = 10_000;

/**
 * What the creative loaded so far, for the heavy-ad trigger: a finished request's encoded bytes, or for one still on
 * its way the larger of what arrived and what its Content-Length announces (a 5 MB video mid-download counts as 5 MB).
 */
function firstRunBytes(requests: ReadonlyArray<{ encodedBytes: number; bodyBytes: number; finished: boolean; headers: Record<string, string> }>): number {
  return requests.reduce((n, r) => {
    if (r.finished) return n + Math.max(r.encodedBytes, r.bodyBytes);
    const announced = Number(r.headers["content-length"]);
    return n + Math.max(r.bodyBytes, Number.isFinite(announced) ? announced : 0);
  }, 0);
}

/** A job with no targeting: the profile prepared pages start with. */
const DEFAULT_JOB = create(ScanJobSchema, {});

export interface ScanLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child?(bindings: object): ScanLogger;
}

export interface TagScannerDeps {
  pool: BrowserPool;
  policy: OutboundPolicy;
  artifacts: ArtifactSink;
  logger?: ScanLogger;
  /** This worker's SERVER_LOCATION (meta.server_location). */
  location: string;
  timeouts?: Partial<ScanTimeouts>;
  /**
   * Egress proxy factory; defaults to @cva/platform's startEgressProxy (tests may wrap it). `listenOn` gives the
   * listening socket inside the browser's network namespace.
   */
  startProxy?: (policy: OutboundPolicy, listenOn?: () => Promise<Server>) => Promise<EgressProxy>;
  /** The screenshot's decode, colour, border and thumbnail (default: a worker thread of its own). */
  imageWork?: ImageWork;
  /** Addresses a page_url host may have (page-origin.ts; default public unicast only, whatever the allowlist says). */
  pageHostPolicy?: OutboundPolicy;
  /**
   * The consent states (privacy/) for v3 jobs. Off unless asked: the process turns it on (TAG_CONSENT_STATES,
   * default 1; main.ts), tests that are not about consent keep their one run per scan.
   */
  consentStates?: boolean;
  /**
   * Derive from the full run the consent states that cannot differ from it (privacy/consent-plan.ts) instead of
   * rendering them; default true (TAG_CONSENT_DERIVE).
   */
  consentDerive?: boolean;
  /** Whom hosts belong to (privacy/vendors.ts; default the curated list). */
  vendors?: VendorDb;
  /**
   * Run Chrome's Heavy Ad Intervention on v3 creatives whose first run came near its limits (heavy-ad/). Off unless
   * asked, as the consent states: the process turns it on (TAG_HEAVY_AD, default 1; main.ts); tests that are not about
   * it keep one run per scan however heavy their creative.
   */
  heavyAd?: boolean;
}

export interface TagScanner {
  scan(job: ScanJob, signal?: AbortSignal): Promise<TagReport>;
  /**
   * Starts every browser and prepares a page for each slot, so that the first scans after a start neither wait for
   * Chromium nor build their page on the critical path (their setup fell from 1.3 s to ~60 ms). Resolves when done
   * or when it could not be.
   */
  warmUp(): Promise<void>;
}

/** Starts the consent states' runs (privacy/), given what the full run saw when its measure phase ended. */
type ConsentStart = (c: {
  renderMs: number; deadline: number; seen: string[]; serverHosts: string[]; site: ReturnType<typeof buildSyntheticSite>;
}) => Promise<ConsentRunArtifact[]>;

/** Hosts outside the synthetic origin the creative's run contacted (http/ws): servers that see a state's headers. */
function serverHostsOf(requests: ReadonlyArray<{ url: string; synthetic?: boolean }>): string[] {
  const hosts = new Set<string>();
  for (const r of requests) {
    if (r.synthetic || !/^(https?|wss?):/i.test(r.url)) continue;
    try {
      hosts.add(new URL(r.url).hostname);
    } catch { /* not a URL */ }
  }
  return [...hosts];
}

/** Milliseconds spent per phase, for the scan log (where an operator looks first when scans get slow). */
interface PhaseMs { setup: number; render: number; measure: number; accessibility: number; landing: number; consentWait?: number }

export function createTagScanner(deps: TagScannerDeps): TagScanner {
  const timeouts: ScanTimeouts = { ...DEFAULT_TIMEOUTS, ...deps.timeouts };
  const startProxy = deps.startProxy ?? ((policy: OutboundPolicy, listenOn?: () => Promise<Server>) => startEgressProxy({ policy, listenOn }));

  // Proxies connect under the outbound policy, with each running scan's page_url host held to public addresses.
  const pageOrigins = createPageOriginGuard(deps.policy, deps.pageHostPolicy);

  // The next scan's page is prepared while the slot is idle, on the lease that held it; the default profile is
  // desktop/en-US (most scans), a job with other targeting re-emulates its prepared page (a few CDP calls).
  const prepare = (l: PageLease) => preparePage({
    browser: l.browser, tabProfiles: l.tabProfiles, policy: pageOrigins.policy, profile: deviceProfile(DEFAULT_JOB, l.chromeMajor),
    startProxy: (policy) => startProxy(policy, l.proxyListener), consentSensor: deps.consentStates === true,
  });
  const warm = createWarmPages({ perBrowser: deps.pool.slotsPerBrowser ?? 1, prepare });
  /** Scans running per browser (afterRender: whether the pages ready cover every one of them). */
  const scansOn = new WeakMap<PageLease["browser"], number>();
  const imageWork = deps.imageWork ?? createImageWork();
  // How long this process was kept from the CPU, over time: how late it made the creatives' assets (measurement).
  const loopLag = createLoopLag();
  const vendors = deps.vendors ?? vendorDb();
  // One page per consent state, per browser, built ahead once a creative on that browser needed them.
  const consentPages = createConsentPages({ perBrowser: extraStates().length, build: buildConsentPage });
  deps.pool.onClose?.(async () => {
    await warm.close();
    await consentPages.close();
    if (!deps.imageWork) await imageWork.close();
    loopLag.close();
  });

  // The host's CPU calibration (cpu-calibration.ts): measured when the service starts (warmUp), so that no scan renders
  // beside it, then sampled again by its speedometer page while scans render — a scan is scaled by the index of its
  // own render's time. A scanner never warmed up has none and its reports carry no `cpu`; a failed one (or a
  // speedometer whose browser went away) is made again after the next scan's render (never beside a render, whose
  // timings it would disturb).
  let speedometer: CpuSpeedometer | undefined;
  let speedometerDead = false;
  // The one before, replaced when its browser went away: its samples still cover the renders it saw.
  let retired: CpuSpeedometer | undefined;
  let calibrationWanted = false;
  function calibrate(browser: PageLease["browser"]): Promise<CpuCalibration | undefined> {
    calibrationWanted = true;
    if (!speedometer || speedometerDead) {
      const old = speedometer;
      speedometerDead = false;
      const s: CpuSpeedometer = createCpuSpeedometer(browser, (err) => {
        deps.logger?.warn({ err: String(err) }, "CPU calibration failed; reports carry no cpu (or the start's scale) until it is made again");
        if (speedometer === s) speedometerDead = true;
      });
      speedometer = s;
      void retired?.close();
      retired = old;
      void s.calibration.then((c) => {
        if (c) deps.logger?.info({ benchmark_index: c.benchmarkIndex, runs: c.runs, scale: c.scale, reference: REFERENCE_DEVICE }, "CPU calibrated");
      });
    }
    return speedometer.calibration;
  }
  deps.pool.onClose?.(async () => { await Promise.all([speedometer?.close(), retired?.close()]); });

  /** The index of a render over wall-clock [fromMs, toMs]: the speedometer's then, else the start's (logged with the scan). */
  async function cpuIndex(fromMs: number, toMs: number, waitMs: number): Promise<{ index: number; samples: number } | undefined> {
    if (!speedometer) return undefined;
    const seen = speedometer.indexOver(fromMs, toMs) ?? retired?.indexOver(fromMs, toMs);
    if (seen) return seen;
    const start = await bounded(speedometer.calibration, waitMs, undefined) ?? await bounded(retired?.calibration ?? Promise.resolve(undefined), 0, undefined);
    return start ? { index: start.benchmarkIndex, samples: 0 } : undefined;
  }

  async function scan(job: ScanJob, signal?: AbortSignal): Promise<TagReport> {
    const log = deps.logger?.child?.({ job_id: job.jobId }) ?? deps.logger;
    // Throws PageUrlRefusedError (the client's error) for a page_url on a non-public host.
    const releasePageHost = await pageOrigins.admit(hostPageUrl(job));
    try {
      return await attempt(job, signal, log, false);
    } catch (err) {
      // The browser died or wedged under this scan — most likely another creative on it did that. This customer's
      // scan is run again, once, on a browser of its own, if the job's time allows.
      const left = job.deadlineUnixMs > 0n ? Number(job.deadlineUnixMs) - Date.now() : Infinity;
      if (!(err instanceof BrowserLostError) || left < MIN_RETRY_MS || signal?.aborted) throw err;
      log?.warn({ err: String(err), ms_left: Number.isFinite(left) ? left : undefined }, "the browser under this scan was lost; scanning again on a browser of its own");
      return attempt(job, signal, log, true);
    } finally {
      releasePageHost();
    }
  }

  async function attempt(job: ScanJob, signal: AbortSignal | undefined, log: ScanLogger | undefined, exclusive: boolean): Promise<TagReport> {
    const lease = await deps.pool.acquire(signal, { exclusive });
    const t0 = Date.now();
    scansOn.set(lease.browser, (scansOn.get(lease.browser) ?? 0) + 1);
    // A browser that goes away ends the watch at once (not at its deadline), so the retry starts with time left.
    const lost = new AbortController();
    const onLost = () => lost.abort();
    lease.browser.once("disconnected", onLost);
    const scanSignal = signal ? AbortSignal.any([signal, lost.signal]) : lost.signal;
    let broken = false;
    // The speedometer's window for this scan's render (cpuScale).
    let renderFromMs = 0;
    let renderEndedMs: number | undefined;
    let endSpeedo = () => {};
    let prepared: PreparedPage | undefined;
    // Each scan replaces the page it took, once: one build a scan, never a burst of them (see afterRender).
    let replaced = false;
    const refill = () => {
      if (exclusive || replaced) return;
      replaced = true;
      warm.refill(lease, 1);
    };
    try {
      const profile = deviceProfile(job, lease.chromeMajor);
      prepared = (await warm.take(lease)) ?? (await prepare(lease));
      await prepared.useProfile(profile);
      // The next scan's page is prepared while this one measures, not while it renders: building a page starts a
      // renderer process, and four of those started beside four navigations (a burst of scans) held every first paint
      // back by over a second — parse-timed animations (timer chains, SMIL) then measured a second short.
      const afterRender = () => {
        renderEndedMs = Date.now();
        endSpeedo();
        // With a page ready for every scan now on this browser (fewer scans at once than slots), this slot's page is
        // built when the scan ends (the `finally` below), not now: the build's work in Chromium's browser process (a
        // CDP trace: its UI thread, which relays every CDP command, 50–120 ms busy during the measure phase, the new
        // context one task of 60–90 ms, while the creative's renderer was idle) held the measuring round trips behind
        // it. Bench, 1 client, 8 pairs in turns (bench/RESULTS.md 2026-11-27, branch tagperf6): measure 139–382 →
        // 47–68 ms, end to end p50 712 → 626 ms. The build then runs after the scan, on what comes next: the next
        // scan's setup and render (back to back) or, in the bench, the floor's scan (+65 ms median). Short of a page ready for every
        // scan (every slot busy), a scan starting meanwhile may need this one: built now, as before.
        if (warm.readyCount(lease) < (scansOn.get(lease.browser) ?? 1)) refill();
        if (calibrationWanted && (!speedometer || speedometerDead)) void calibrate(lease.browser);
      };
      // v3 reports only: v2's documented shape has no privacy to carry them.
      const consent: ConsentStart | undefined = !deps.consentStates || job.apiVersion !== "v3" ? undefined : (c) => {
        const plan = planConsentStates({ job, states: extraStates(), seen: c.seen, serverHosts: c.serverHosts, derive: deps.consentDerive !== false });
        log?.info({
          consent_seen: c.seen, consent_rendered: plan.filter((p) => p.render).map((p) => p.state.name),
          consent_derived: plan.filter((p) => !p.render).map((p) => p.state.name),
        }, "consent plan");
        return startConsentRuns({
          browser: lease.browser, startProxy: (policy) => startProxy(policy, lease.proxyListener), policy: pageOrigins.policy,
          job, site: c.site, profile, plan, renderMs: c.renderMs, deadline: c.deadline, pages: exclusive ? undefined : consentPages,
        });
      };
      // v3 only, as the consent states: Chrome's Heavy Ad Intervention on the creative in an ad frame, when the first
      // run came near one of its limits (heavy-ad/trigger.ts).
      const heavyAd = !deps.heavyAd || job.apiVersion !== "v3" ? undefined : (first: FirstRun, site: SyntheticSite, size: { width: number; height: number }, deadline: number): Promise<HeavyAdRun> => {
        const check = heavyAdCheck(first);
        if (!check.run) return Promise.resolve({ checked: false, intervened: false, reason: "", watchedMs: 0, detail: check.detail });
        return runHeavyAd({
          browser: lease.browser, adTagging: lease.adTagging, startProxy: (policy) => startProxy(policy, lease.proxyListener), policy: pageOrigins.policy,
          site, profile, size, minWatchMs: first.renderMs, deadline, why: check.detail,
        });
      };
      // The host's speed while this creative renders (cpu-calibration.ts: memory-bound JavaScript's speed moves in
      // regimes of seconds on a shared host), for its `cpu`.
      renderFromMs = Date.now();
      endSpeedo = speedometer && !speedometerDead ? speedometer.begin() : () => {};
      const { art, phaseMs, stepsMs, screenshot, landingShot, gatherErrors } = await gather(job, profile, prepared, t0, scanSignal, log, afterRender, consent, heavyAd);
      // Gatherers end quietly on a closed connection; a report measured on a dead browser would be a wrong one.
      if (!lease.browser.connected) throw new BrowserLostError("the browser closed during the scan");
      const images: StoredImages = await screenshot;
      // A scan that overtook the start's calibration (~1 s of CPU) waits for it while its job has time.
      const left = job.deadlineUnixMs > 0n ? Number(job.deadlineUnixMs) - Date.now() - 1_500 : 20_000;
      const cpuAt = await cpuIndex(renderFromMs, renderEndedMs ?? Date.now(), Math.min(20_000, left));
      art.cpuScale = cpuAt && cpuAt.index / REFERENCE_DEVICE.benchmarkIndex;
      if (landingShot) images.landingShot = { id: await deps.artifacts.put(landingShot, "image/jpeg"), bytes: landingShot.byteLength };
      images.filmStrip = await storeFilmStrip(deps.artifacts, prepared.filmStrip.artifact, art.renderStartedAt);
      const report = buildTagReport({ job, location: deps.location, cpu: machineCpu(), ram: machineRam(), startedMs: t0, endedMs: Date.now() }, art, images);
      log?.info({
        ms: Date.now() - t0, phase_ms: phaseMs, steps_ms: stepsMs, timed_out: art.timedOut, cpu_index: cpuAt, requests: art.requests.length, landing: art.landing?.evidence, exclusive,
        ...(gatherErrors.length > 0 ? { gatherer_errors: gatherErrors } : {}),
        ...(images.problem ? { screenshot_problem: images.problem } : {}),
      }, "tag scanned");
      return report;
    } catch (err) {
      if (!lease.browser.connected || err instanceof BrowserWedgedError) broken = true;
      log?.error({ err: String(err), exclusive }, "tag scan failed");
      throw broken && !(err instanceof BrowserLostError) ? new BrowserLostError(String(err)) : err;
    } finally {
      // Closing the context drops its renderer, cookies, storage, cache and service workers: nothing reaches the
      // next scan. A context that does not close means a wedged browser: replace it. The report does not wait for
      // this; the slot does.
      lease.browser.off("disconnected", onLost);
      scansOn.set(lease.browser, (scansOn.get(lease.browser) ?? 1) - 1);
      endSpeedo(); // a scan that failed before its render ended
      // At once, not after the edge's store and commit (tried, 2026-11-27: 50 ms later freed those ~10 ms, but a
      // scan that came right after rendered beside the teardown, and a CI run's static creative lost its flash verdict).
      refill(); // the page built now, when the render's end left it for later (or the scan failed before that)
      const page = prepared;
      void (async () => {
        if (page && !(await page.dispose()).closed) broken = true;
        lease.release(broken);
      })().catch(() => lease.release(true));
    }
  }

  /**
   * The screenshot's upload step: PNG → thumbnail, colour, border (image-work thread), both stored in the artifact
   * sink. Started as soon as the shot is taken, so it runs while the click-through does.
   */
  async function storeScreenshot(box: { width: number } | undefined, png: Uint8Array | undefined): Promise<StoredImages> {
    const out: StoredImages = { hasBorder: false };
    if (!png) return { ...out, problem: "no screenshot: the capture did not answer within its step" };
    try {
      const img = await imageWork.analyse(png, box ? Math.min(box.width, MAX_SHOT_CSS) : undefined);
      out.hasBorder = img.hasBorder;
      const [hiId, thId] = await Promise.all([deps.artifacts.put(png, "image/png"), deps.artifacts.put(img.thumbnail, "image/jpeg")]);
      out.screenshot = {
        highres: { id: hiId, bytes: png.byteLength, color: img.color },
        thumbnail: { id: thId, bytes: img.thumbnail.byteLength, color: img.color },
      };
    } catch (err) {
      // An undecodable screenshot leaves the field empty; the scan log says why.
      out.problem = err instanceof Error ? err.message : String(err);
    }
    return out;
  }

  /**
   * One scan's gathering, in its phases — render, measure, click-through — each returning its artifact, then every
   * gatherer stopped; the artifacts together are the report's input (TagArtifacts).
   */
  async function gather(
    job: ScanJob, profile: DeviceProfile, prepared: PreparedPage, t0: number,
    signal: AbortSignal | undefined, log: ScanLogger | undefined, afterRender: () => void,
    consent?: ConsentStart,
    heavyAd?: (first: FirstRun, site: SyntheticSite, size: { width: number; height: number }, deadline: number) => Promise<HeavyAdRun>,
  ) {
    const site = buildSyntheticSite(job);
    const captureLanding = job.input.case === "tag" && job.input.value.captureLandingPage;
    let renderDeadline = t0 + timeouts.renderMs;
    // Every phase answers to the job's deadline, less a second to build, store and send the report.
    const jobDeadline = job.deadlineUnixMs > 0n ? Number(job.deadlineUnixMs) - 1_000 : Infinity;
    if (job.deadlineUnixMs > 0n) {
      // Leave room after the render phase for measuring and replying before the requester gives up.
      const hard = Number(job.deadlineUnixMs) - timeouts.stepMs * 2 - (captureLanding ? timeouts.landingMs : 0);
      renderDeadline = Math.max(t0 + 1_000, Math.min(renderDeadline, hard));
    }
    const { gatherers, events, signals, net, interception, perf, screencast, proxy } = prepared;

    const render = await renderPhase(prepared, { site, profile, deadline: renderDeadline, timeouts, signal, log, afterRender });
    // What the creative looked for until the screenshot is in (its scripts read, bounded): the plan renders only what
    // can differ. Then the sensor's Debugger goes off, before axe-core loads (V8 caches no compiled script while a
    // debugger is on, and compiles slower: axe's load into a fresh renderer's top frame, 12 each, load 8, renderer
    // main thread 59 → 52 ms, CPU of every process 106 → 87 ms, wall 103 → 82 ms).
    const sensor = prepared.consentSensor;
    let sensorDone: Promise<string[]> | undefined;
    const settle = () => (sensorDone ??= sensor ? sensor.settle(2_000).then(async (seen) => { await sensor.release(1_000); return seen; }) : Promise.resolve(["unscanned"]));
    // axe-core's load into the top frame starts as soon as the screenshot is in and the sensor is off (or after
    // AXE_WAITS_FOR_SENSOR_MS, with the Debugger still on, as before); the accessibility checks wait for it.
    let axeTop: Promise<boolean> | undefined;
    const measure = await measurePhase(prepared, {
      site, profile, timeouts, jobDeadline,
      beside: () => (axeTop = bounded(settle(), AXE_WAITS_FOR_SENSOR_MS, undefined).then(() => loadAxeTop(prepared, site, timeouts.stepMs))),
    });
    const settled = settle();
    // The consent states run while this run stores its screenshot and clicks through (privacy/consent-runs.ts): after
    // the measure phase, whose reads (storage, layout: each bounded) starved beside three renderer starts on a loaded
    // machine and came back empty.
    const consentRuns = consent ? (async () => {
      const seen = await settled;
      const runs = await consent({ renderMs: render.endedAt - render.startedAt, deadline: jobDeadline, seen, serverHosts: serverHostsOf(net.artifact.requests), site });
      return { runs, seen };
    })() : undefined;
    // Likewise the heavy-ad run, when the first run's figures call for it: its bytes and CPU are the render's. A main
    // thread that answered nothing even once the creative's script was terminated is held by a task: its CPU figures
    // stop at its last answer (report.ts marks them), and the heavy-ad trigger takes it as evidence.
    const cpuUnanswered = !measure.responsive && !events.artifact.crashed;
    const box = measure.measured.layout?.box;
    const heavyAdRun = heavyAd?.(
      {
        bytes: firstRunBytes(net.artifact.requests), cpuMs: perf.artifact.cpuMs, renderMs: render.endedAt - render.startedAt,
        ...firstRunTasks(perf.artifact.cpuSeries, measure.terminated), unanswered: cpuUnanswered,
        calmProven: render.watch.ended === "calm proven",
      },
      site, box && box.width > 0 && box.height > 0 ? box : site.slot ?? { width: 300, height: 250 }, jobDeadline,
    );
    const measuredAt = Date.now();
    const screenshot = storeScreenshot(measure.measured.layout?.box ?? undefined, measure.measured.screenshotPng);
    const motion = screencast.artifact.changes;
    const a11ySteps: Record<string, number> = {};
    // The creative moved for more than about 5 s: its pause control is tried, on the page as shown.
    const longMotion = render.watch.stillMoving || (motion.length > 2 && motion[motion.length - 1]! - motion[1]! > 4_000);
    const tryPause = longMotion && measure.responsive;
    // Responsiveness narrows the page. When something after it clicks the page as shown (the click-through, the pause
    // control), the width is put back anyway: then the check runs while axe-core loads, its frame waits beside axe's
    // transfer and compile, and the accessibility checks read the page put back (issue 22; bench/RESULTS.md
    // 2026-11-27 22:53Z, A/B in turns: accessibility 163–179 → 137–159 ms, landing 37 → 24–30 ms). Otherwise it runs
    // last, without the width put back (two frames fewer).
    const putBack = captureLanding || tryPause;
    const responsive = () => responsivePhase(prepared, { site, profile, measure, putBack, timeouts, jobDeadline, steps: a11ySteps });
    let resized = putBack ? await responsive() : undefined;
    const checks = await accessibilityPhase(prepared, {
      steps: a11ySteps, site, before: settled, axeTop, responsive: measure.responsive, timeouts, jobDeadline, signal,
    });
    if (!putBack) resized = await responsive();
    const pause = tryPause ? await pauseControl(prepared, { controls: checks.controls, stillMoving: render.watch.stillMoving, timeouts, jobDeadline, signal }) : undefined;
    const a11y = { document: checks.document, pause, canvases: checks.canvases, images: checks.images };
    const a11yDoneAt = Date.now();
    const click = await clickThroughPhase(prepared, {
      capture: captureLanding, responsive: measure.responsive, click: measure.measured.layout?.click, touch: profile.hasTouch,
      timeouts, jobDeadline,
    });
    const phaseMs: PhaseMs = {
      setup: render.startedAt - t0, render: render.endedAt - render.startedAt, measure: measuredAt - render.endedAt, accessibility: a11yDoneAt - measuredAt, landing: Date.now() - a11yDoneAt,
    };
    const stopped = await runPhase(gatherers, "stop", { ms: 2_000 });
    const consentDone = Date.now();
    const privacyRuns = consentRuns ? await consentRuns : undefined;
    const heavyAdResult = heavyAdRun ? await heavyAdRun : undefined;
    phaseMs.consentWait = Date.now() - consentDone;

    const changes = screencast.localChanges();
    const { watch } = render;
    log?.info({
      render_end: watch.ended, still_moving: watch.stillMoving, render_ms: phaseMs.render, pixel_changes: changes.length,
      probes: watch.probes.total, incomplete_probes: watch.probes.incomplete,
      last_change_ms: changes.length ? changes[changes.length - 1]! - render.startedAt : -1,
      // Where a duration came from, on the page's clocks (ms after render start): the paints (main-thread rendering
      // updates), and the screencast's change times (compositor frames) — a loaded machine pulls these apart.
      paints_ms: signals.artifact.paints.slice(0, 4).map((p) => Math.round(p - render.startedAt)),
      changes_ms: screencast.artifact.changes.slice(0, 12).map((c) => Math.round(c - render.startedAt)),
      // The photosensitivity capture: changed frames decoded, time in which a frame may have been dropped, worst delay.
      flash_frames: prepared.flashes.artifact.decoded,
      flash_blind_ms: Math.round(prepared.flashes.artifact.blind.reduce((s, [a, b]) => s + b - a, 0)),
      flash_max_delay_ms: Math.round(prepared.flashes.artifact.maxDelayMs),
      capture_lag_ms: screencast.artifact.lastChangeLagMs,
      scheduled_end_ms: watch.scheduledEnd !== undefined ? Math.round(watch.scheduledEnd - render.startedAt) : -1,
      watch_ms: watch.timing,
    }, "render watch");

    const { measured, storage } = measure;
    const landing = click.landing;
    const art: TagArtifacts = {
      profile, site, requests: net.artifact.requests, mixedContent: net.artifact.mixedContent.slice(0, net.artifact.creativeMixedContent),
      navTs: net.artifact.navTs, navWallMs: net.artifact.navWallTime !== undefined ? net.artifact.navWallTime * 1000 : undefined,
      events: events.artifact, paints: signals.artifact.paints, pixelChanges: screencast.artifact.changes,
      captureLagMs: screencast.artifact.lastChangeLagMs, scheduledMotionEnd: watch.scheduledEnd,
      stillMoving: watch.stillMoving, usesDocumentWrite: signals.artifact.usesDocumentWrite, videoPlayed: signals.artifact.videoPlayed,
      cookies: storage.cookies, localStorage: storage.localStorage, layout: measured.layout, resized,
      cpuMs: perf.artifact.cpuMs, cpuUnanswered, heapBytes: perf.artifact.heapBytes, landing, timedOut: render.timedOut || measure.terminated,
      starvation: perf.artifact.starvation, renderEndedAt: render.endedAt, cpuSeries: perf.artifact.cpuSeries, answers: perf.artifact.answers,
      frameWaits: watch.probes.frameWaits,
      loopHeld: (from, to) => loopLag.heldBetween(from, to),
      blockedNavigations: interception.artifact.blockedNavigations,
      blockedHosts: new Map(proxy.blocked.map((b) => [b.host, b.reason])),
      resolvedIp: (h) => proxy.resolvedIp(h),
      creativeRequestCount: net.artifact.creativeRequests,
      vendors, consentRuns: privacyRuns?.runs, consentSeen: privacyRuns?.seen,
      allowedDomains: job.input.case === "tag" ? job.input.value.allowedDomains : [],
      renderStartedAt: render.startedAt,
      accessibility: { flashes: prepared.flashes.artifact, ...a11y },
      heavyAd: heavyAdResult,
    };
    const gatherErrors = [...render.errors, ...click.errors, ...stopped];
    // Where the measuring phases' time went, step by step (issue 22: the first layout probe beside the next page's
    // build, axe's load): the scan log's steps_ms.
    const stepsMs = { ...measure.steps, ...a11ySteps };
    return { art, phaseMs, stepsMs, screenshot, landingShot: landing?.screenshotJpeg, gatherErrors };
  }

  async function warmUp(): Promise<void> {
    // One lease per browser: the pool hands out the least busy browser, so n leases taken together cover n browsers.
    const n = Math.max(1, Math.round(deps.pool.capacity / (deps.pool.slotsPerBrowser || 1)));
    const taken = await Promise.allSettled(Array.from({ length: n }, () => deps.pool.acquire()));
    await Promise.all(taken.map(async (t) => {
      if (t.status !== "fulfilled") return;
      const lease = t.value;
      try {
        await warm.ready(lease);
        await calibrate(lease.browser);
      } finally {
        lease.release();
      }
    }));
  }

  return { scan, warmUp };
}



export { SYNTHETIC_ORIGIN };
