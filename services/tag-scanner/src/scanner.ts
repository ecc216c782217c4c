import type { ScanJob, TagReport } from "@cva/contracts";
import {
  machineCpu, machineRam, startEgressProxy,
  type ArtifactSink, type EgressProxy, type OutboundPolicy,
} from "@cva/platform";
import type { BrowserContext, CDPSession, Target } from "puppeteer-core";
import type { BrowserPool } from "./browser-pool.ts";
import { DEFAULT_TIMEOUTS, SYNTHETIC_ORIGIN, deviceProfile, primaryLanguage, type DeviceProfile, type ScanTimeouts } from "./config.ts";
import { decodePng, dominantColor, hasBorder, thumbnailJpeg } from "./fields/image.ts";
import { gatherInterception } from "./gatherers/interception.ts";
import { captureLandingPage } from "./gatherers/landing-page.ts";
import { measureCreative, type MeasureArtifact } from "./gatherers/measure.ts";
import { gatherNetwork } from "./gatherers/network.ts";
import { gatherPageEvents } from "./gatherers/page-events.ts";
import { gatherPageSignals } from "./gatherers/page-signals.ts";
import { gatherPerformance } from "./gatherers/performance.ts";
import { createProbeWorlds } from "./gatherers/probe-world.ts";
import { watchRender } from "./gatherers/render-watch.ts";
import { gatherScreencast } from "./gatherers/screencast.ts";
import { readStorage } from "./gatherers/storage.ts";
import type { TabProfile } from "./new-tab-profile.ts";
import { buildTagReport, type StoredImages, type TagArtifacts } from "./report.ts";
import { buildSyntheticSite } from "./synthetic-origin.ts";
import { TIMED_OUT, bounded, within } from "./util.ts";

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
  /** Egress proxy factory; defaults to @cva/platform's startEgressProxy (tests may wrap it). */
  startProxy?: (policy: OutboundPolicy) => Promise<EgressProxy>;
}

export interface TagScanner {
  scan(job: ScanJob, signal?: AbortSignal): Promise<TagReport>;
}

/** Milliseconds spent per phase, for the scan log (where an operator looks first when scans get slow). */
interface PhaseMs { setup: number; render: number; measure: number; landing: number }

export function createTagScanner(deps: TagScannerDeps): TagScanner {
  const timeouts: ScanTimeouts = { ...DEFAULT_TIMEOUTS, ...deps.timeouts };
  const startProxy = deps.startProxy ?? ((policy: OutboundPolicy) => startEgressProxy({ policy }));

  async function scan(job: ScanJob, signal?: AbortSignal): Promise<TagReport> {
    const t0 = Date.now();
    const log = deps.logger?.child?.({ job_id: job.jobId }) ?? deps.logger;
    const lease = await deps.pool.acquire(signal);
    let broken = false;
    let proxy: EgressProxy | undefined;
    let context: BrowserContext | undefined;
    let unregister: (() => void) | undefined;
    try {
      proxy = await startProxy(deps.policy);
      // `<-loopback>` removes Chromium's implicit proxy bypass for localhost/127.0.0.1: loopback must obey the policy too.
      context = await setup(lease.browser.createBrowserContext({
        proxyServer: proxy.url,
        proxyBypassList: ["<-loopback>"],
        downloadBehavior: { policy: "deny" },
      }));
      const profile = deviceProfile(job, lease.chromeMajor);
      if (context.id) unregister = lease.tabProfiles.register(context.id, tabProfile(profile));
      const { art, phaseMs, screenshotPng, landingShot } = await gather(job, profile, context, proxy, t0, signal, log);
      const images = await storeImages(art, screenshotPng, landingShot);
      const report = buildTagReport({ job, location: deps.location, cpu: machineCpu(), ram: machineRam(), startedMs: t0, endedMs: Date.now() }, art, images);
      log?.info({ ms: Date.now() - t0, phase_ms: phaseMs, timed_out: art.timedOut, requests: art.requests.length, landing: art.landing?.evidence }, "tag scanned");
      return report;
    } catch (err) {
      if (!lease.browser.connected || err instanceof BrowserWedgedError) broken = true;
      log?.error({ err: String(err) }, "tag scan failed");
      throw err;
    } finally {
      unregister?.();
      if (context) {
        // Closing the context drops its renderer, cookies, storage, cache and service workers: nothing reaches the
        // next scan. A context that does not close means a wedged browser: replace it.
        const closed = await bounded(context.close().then(() => true), 10_000, false);
        if (!closed) broken = true;
      }
      if (proxy) await bounded(proxy.close(), 5_000, undefined);
      lease.release(broken);
    }
  }

  /** The upload step: screenshot PNG → thumbnail, colour, border; everything stored in the artifact sink. */
  async function storeImages(art: TagArtifacts, png: Uint8Array | undefined, landingJpeg: Uint8Array | undefined): Promise<StoredImages> {
    const out: StoredImages = { hasBorder: false };
    if (png) {
      try {
        const raster = decodePng(png);
        const color = dominantColor(raster);
        const box = art.layout?.box;
        if (box) out.hasBorder = hasBorder(raster, raster.width / Math.max(1, box.width));
        const thumb = thumbnailJpeg(raster, 300);
        const [hiId, thId] = await Promise.all([deps.artifacts.put(png, "image/png"), deps.artifacts.put(thumb, "image/jpeg")]);
        out.screenshot = { highres: { id: hiId, bytes: png.byteLength, color }, thumbnail: { id: thId, bytes: thumb.byteLength, color } };
      } catch {
        /* an undecodable screenshot leaves the field empty */
      }
    }
    if (landingJpeg) out.landingShot = { id: await deps.artifacts.put(landingJpeg, "image/jpeg"), bytes: landingJpeg.byteLength };
    return out;
  }

  async function gather(
    job: ScanJob, profile: DeviceProfile, context: BrowserContext, proxy: EgressProxy, t0: number,
    signal: AbortSignal | undefined, log: ScanLogger | undefined,
  ) {
    const site = buildSyntheticSite(job);
    const captureLanding = job.input.case === "tag" && job.input.value.captureLandingPage;
    let renderDeadline = t0 + timeouts.renderMs;
    if (job.deadlineUnixMs > 0n) {
      // Leave room after the render phase for measuring and replying before the requester gives up.
      const hard = Number(job.deadlineUnixMs) - timeouts.stepMs * 2 - (captureLanding ? timeouts.landingMs : 0);
      renderDeadline = Math.max(t0 + 1_000, Math.min(renderDeadline, hard));
    }
    const phaseMs: PhaseMs = { setup: 0, render: 0, measure: 0, landing: 0 };

    // Popups: closed at once while the creative renders (the browser's popup blocker already refuses those without a
    // user gesture); during the click-through the landing-page step takes the new tab instead.
    let closePopups = true;
    const onTarget = (t: Target) => {
      if (t.type() !== "page" || !closePopups || !t.opener()) return;
      void t.page().then((p) => p?.close().catch(() => {}), () => {});
    };
    context.on("targetcreated", onTarget);

    // A browser that cannot even open a tab is wedged: fail fast and let the pool replace it.
    const page = await setup(context.newPage());
    const client = await setup(page.createCDPSession());
    let mainFrameId = "";
    const events = gatherPageEvents(client);
    const signals = gatherPageSignals(client);
    const net = gatherNetwork(client, { isSynthetic: (u) => site.respond(u) !== undefined });
    const interception = gatherInterception(client, site, () => mainFrameId);
    const perf = gatherPerformance(client);
    const screencast = gatherScreencast(client, { width: profile.width, height: profile.height });
    const worlds = createProbeWorlds(client);

    mainFrameId = (await setup(client.send("Page.getFrameTree"))).frameTree.frame.id;
    await setup(Promise.all([
      events.start(), signals.start(), net.start(), perf.start(),
      ...emulate(client, profile),
      // The exact targeting value on every request of the creative (the UA override derives a q-valued one).
      client.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Language": profile.language } }),
      interception.start(),
    ]));
    await screencast.start().catch(() => {});

    // ---- render phase: navigate, then watch until the render watch proves the creative calm (or endless), or the
    // deadline.
    const renderStart = Date.now();
    phaseMs.setup = renderStart - t0;
    const navigation = client.send("Page.navigate", { url: site.entryUrl }).catch((err: unknown) => {
      log?.warn({ err: String(err) }, "navigation failed");
    });
    await bounded(navigation, Math.max(0, renderDeadline - Date.now()), undefined);
    const watch = await watchRender({
      worlds, realms: signals.realms, screencast, network: net,
      page: { loadLocal: () => events.artifact.loadLocal, loaded: () => events.artifact.loadTs !== undefined, crashed: () => events.artifact.crashed },
      onTick: (now) => perf.tick(now),
    }, { settleMs: timeouts.settleMs, holdMs: timeouts.holdMs }, renderStart, renderDeadline, signal);
    const endedAt = Date.now();
    phaseMs.render = endedAt - renderStart;
    let timedOut = events.artifact.loadTs === undefined || events.artifact.crashed || !!signal?.aborted;
    await screencast.stop();

    // ---- measuring phase: each step bounded; a page whose main thread is stuck gets its script terminated once.
    const measureDeadline = Date.now() + timeouts.stepMs * 4;
    const budget = () => Math.max(500, Math.min(timeouts.stepMs, measureDeadline - Date.now()));
    const alive = () => worlds.evaluate(mainFrameId, "1", 2_000);
    let responsive = !events.artifact.crashed && (await alive()) !== undefined;
    if (!responsive && !events.artifact.crashed) {
      await bounded(client.send("Runtime.terminateExecution"), 2_000, undefined);
      responsive = (await alive()) !== undefined;
      if (responsive) timedOut = true;
    }
    let measured: MeasureArtifact = {};
    if (responsive) {
      await perf.sample();
      measured = await measureCreative(client, worlds, mainFrameId, profile, budget);
    }
    const storage = responsive ? await readStorage(client, worlds, budget()) : { cookies: [], localStorage: [] };
    phaseMs.measure = Date.now() - endedAt;

    // ---- click-through (v3): only when there is something to click. What follows is the landing page's, not the
    // creative's: its requests, console and mixed content are left out of the report.
    const landingStart = Date.now();
    const creativeRequestCount = net.artifact.requests.length;
    const creativeMixed = net.artifact.mixedContent.length;
    events.stop();
    signals.clickPhase();
    let landing: TagArtifacts["landing"];
    const click = measured.layout?.click;
    if (captureLanding && responsive && click) {
      closePopups = false;
      interception.allowClickNavigation();
      landing = await bounded(
        captureLandingPage({
          page, client, context, worlds, mainFrameId, point: click,
          waitMs: timeouts.landingMs, stepMs: timeouts.stepMs,
          nextTopNavigation: interception.nextTopNavigation,
          inflightSince: (i) => net.inflightSince(i),
          requestCount: () => net.artifact.requests.length,
          clickTimers: () => signals.realms.afterClick(),
        }),
        timeouts.landingMs + timeouts.stepMs * 3,
        { tab: "none", url: "", title: "", working: false, evidence: "landing step timed out" },
      );
    } else if (captureLanding) {
      landing = { tab: "none", url: "", title: "", working: false, evidence: "nothing to click" };
    }
    interception.stop();
    signals.stop();
    phaseMs.landing = Date.now() - landingStart;
    context.off("targetcreated", onTarget);
    await bounded(net.stop(), 2_000, undefined);
    const changes = screencast.localChanges();
    log?.info({
      render_end: watch.ended, still_moving: watch.stillMoving, render_ms: phaseMs.render, pixel_changes: changes.length,
      last_change_ms: changes.length ? changes[changes.length - 1]! - renderStart : -1,
    }, "render watch");

    const art: TagArtifacts = {
      profile, site, requests: net.artifact.requests, mixedContent: net.artifact.mixedContent.slice(0, creativeMixed),
      navTs: net.artifact.navTs, navWallMs: net.artifact.navWallTime !== undefined ? net.artifact.navWallTime * 1000 : undefined,
      events: events.artifact, paints: signals.artifact.paints, pixelChanges: screencast.artifact.changes,
      stillMoving: watch.stillMoving, usesDocumentWrite: signals.artifact.usesDocumentWrite, videoPlayed: signals.artifact.videoPlayed,
      cookies: storage.cookies, localStorage: storage.localStorage, layout: measured.layout, resized: measured.resized,
      cpuMs: perf.artifact.cpuMs, heapBytes: perf.artifact.heapBytes, landing, timedOut,
      blockedNavigations: interception.artifact.blockedNavigations,
      blockedHosts: new Map(proxy.blocked.map((b) => [b.host, b.reason])),
      resolvedIp: (h) => proxy.resolvedIp(h),
      creativeRequestCount,
    };
    return { art, phaseMs, screenshotPng: measured.screenshotPng, landingShot: landing?.screenshotJpeg };
  }

  return { scan };
}

function tabProfile(p: DeviceProfile): TabProfile {
  return {
    userAgent: p.userAgent, acceptLanguage: languageList(p.language), platform: p.platform, locale: primaryLanguage(p.language),
    width: p.width, height: p.height, deviceScaleFactor: p.deviceScaleFactor, isMobile: p.isMobile, hasTouch: p.hasTouch,
  };
}

function emulate(client: CDPSession, p: DeviceProfile): Array<Promise<unknown>> {
  const t = tabProfile(p);
  return [
    client.send("Emulation.setDeviceMetricsOverride", { width: t.width, height: t.height, deviceScaleFactor: t.deviceScaleFactor, mobile: t.isMobile }),
    client.send("Emulation.setTouchEmulationEnabled", { enabled: t.hasTouch, maxTouchPoints: t.hasTouch ? 5 : 1 }),
    // acceptLanguage (a plain list; Chromium adds q-values itself) drives navigator.language(s).
    client.send("Emulation.setUserAgentOverride", { userAgent: t.userAgent, acceptLanguage: t.acceptLanguage, platform: t.platform }),
    client.send("Emulation.setLocaleOverride", { locale: t.locale }).catch(() => {}),
  ];
}

class BrowserWedgedError extends Error {}

async function setup<T>(p: Promise<T>, ms = 15_000): Promise<T> {
  const r = await within(p, ms);
  if (r === TIMED_OUT) throw new BrowserWedgedError("the browser did not answer while setting up the scan");
  return r;
}

function languageList(acceptLanguage: string): string {
  return acceptLanguage.split(",").map((l) => l.split(";")[0]!.trim()).filter((l) => /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(l)).join(",") || "en-US";
}

export { SYNTHETIC_ORIGIN };
