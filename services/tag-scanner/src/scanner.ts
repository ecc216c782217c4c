import { randomBytes } from "node:crypto";
import type { ScanJob, TagReport } from "@cva/contracts";
import {
  machineCpu, machineRam, startEgressProxy,
  type ArtifactSink, type EgressProxy, type OutboundPolicy,
} from "@cva/platform";
import type { BrowserContext, CDPSession, Protocol, Target } from "puppeteer-core";
import type { BrowserPool } from "./browser-pool.ts";
import { DEFAULT_TIMEOUTS, SYNTHETIC_ORIGIN, deviceProfile, primaryLanguage, type DeviceProfile, type ScanTimeouts } from "./config.ts";
import { paintedSize } from "./fields/dimensions.ts";
import { decodePng, dominantColor, hasBorder, thumbnailJpeg } from "./fields/image.ts";
import { measureLayout } from "./gatherers/frame-layout.ts";
import { instrumentSource, type PageSignal } from "./gatherers/instrument.ts";
import { captureLandingPage } from "./gatherers/landing-page.ts";
import { gatherNetwork } from "./gatherers/network.ts";
import { gatherPageEvents } from "./gatherers/page-events.ts";
import { createProbeWorlds, type ProbeWorlds } from "./gatherers/probe-world.ts";
import { createRealmTracker, motionVerdict, movingAtDeadline, probeMotion, type MotionEvidence, type ProbedMotion } from "./gatherers/render-watch.ts";
import { gatherScreencast } from "./gatherers/screencast.ts";
import type { TabProfile } from "./new-tab-profile.ts";
import { buildTagReport, type StoredImages, type TagArtifacts } from "./report.ts";
import { buildSyntheticSite } from "./synthetic-origin.ts";
import { TIMED_OUT, bounded, sleep, truncate, within } from "./util.ts";

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
    let phase: "render" | "click" | "done" = "render";

    // Popups: closed at once while the creative renders (the browser's popup blocker already refuses those without a
    // user gesture); during the click-through the landing-page gatherer takes the new tab instead.
    const onTarget = (t: Target) => {
      if (t.type() !== "page" || phase === "click" || !t.opener()) return;
      void t.page().then((p) => p?.close().catch(() => {}), () => {});
    };
    context.on("targetcreated", onTarget);

    // A browser that cannot even open a tab is wedged: fail fast and let the pool replace it.
    const page = await setup(context.newPage());
    const client = await setup(page.createCDPSession());
    const binding = `__cva_${randomBytes(6).toString("hex")}`;

    const events = gatherPageEvents(client);
    const net = gatherNetwork(client, { isSynthetic: (u) => site.respond(u) !== undefined });
    const screencast = gatherScreencast(client, { width: profile.width, height: profile.height });
    const worlds = createProbeWorlds(client);
    const realms = createRealmTracker();
    const paints: number[] = [];
    let usesDocumentWrite = false;
    let videoPlayed = false;

    client.on("Runtime.bindingCalled", (e: Protocol.Runtime.BindingCalledEvent) => {
      if (e.name !== binding || phase === "done" || e.payload.length > 2_000) return;
      let msg: PageSignal;
      try {
        msg = JSON.parse(e.payload) as PageSignal;
      } catch {
        return;
      }
      if (msg.t === "motion") realms.note(msg);
      else if (phase !== "render") return;
      else if (msg.t === "dw") usesDocumentWrite = true;
      else if (msg.t === "video") videoPlayed = true;
      else if (msg.t === "paint" && typeof msg.at === "number" && paints.length < 100) paints.push(msg.at);
    });

    // Interception: the synthetic origin (and the host page at page_url) are answered here; everything else
    // continues to the network through the egress proxy. Top-frame navigations away from the creative are refused
    // while it renders (an auto-redirecting tag would otherwise replace itself); non-http(s) ones always.
    let mainFrameId = "";
    let topNavigations = 0;
    const blockedNavigations = new Set<string>();
    const topNavWaiters: Array<(url: string) => void> = [];
    client.on("Fetch.requestPaused", (e: Protocol.Fetch.RequestPausedEvent) => {
      const url = e.request.url;
      const isTopDoc = e.resourceType === "Document" && e.frameId === mainFrameId;
      if (isTopDoc) {
        topNavigations++;
        const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
        const isEntry = topNavigations === 1 || site.respond(url) !== undefined;
        if ((scheme !== "http" && scheme !== "https") || (phase === "render" && !isEntry) || phase === "done") {
          blockedNavigations.add(url);
          client.send("Fetch.failRequest", { requestId: e.requestId, errorReason: "Aborted" }).catch(() => {});
          return;
        }
        if (phase === "click") for (const w of topNavWaiters.splice(0)) w(url);
      }
      const syn = phase === "click" && isTopDoc ? undefined : site.respond(url);
      if (syn) {
        client.send("Fetch.fulfillRequest", {
          requestId: e.requestId, responseCode: syn.status,
          responseHeaders: [{ name: "Content-Type", value: syn.contentType }, { name: "Cache-Control", value: "no-store" }],
          body: Buffer.from(syn.body).toString("base64"),
        }).catch(() => {});
      } else {
        client.send("Fetch.continueRequest", { requestId: e.requestId }).catch(() => {});
      }
    });

    const tree = await setup(client.send("Page.getFrameTree"));
    mainFrameId = tree.frameTree.frame.id;
    await setup(Promise.all([
      events.start(),
      net.start(),
      client.send("Performance.enable", { timeDomain: "timeTicks" }),
      client.send("Runtime.addBinding", { name: binding }),
      client.send("Page.addScriptToEvaluateOnNewDocument", { source: instrumentSource(binding) }),
      ...emulate(client, profile),
      // The exact targeting value on every request of the creative (the UA override derives a q-valued one).
      client.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Language": profile.language } }),
      client.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] }),
    ]));
    await screencast.start().catch(() => {});

    // ---- render phase: navigate, then watch until the render watch proves the creative calm (or endless), or the
    // deadline. Metrics are sampled along the way so a page that later hangs still has values.
    let cpuMs = 0;
    let heapBytes = 0;
    const sampleMetrics = async () => {
      const m = await bounded(client.send("Performance.getMetrics"), 2_000, undefined);
      if (!m) return;
      const get = (n: string) => m.metrics.find((x) => x.name === n)?.value ?? 0;
      cpuMs = Math.max(cpuMs, Math.round(get("TaskDuration") * 1000));
      heapBytes = Math.max(heapBytes, Math.round(get("JSHeapUsedSize")));
    };
    const renderStart = Date.now();
    phaseMs.setup = renderStart - t0;
    const navigation = client.send("Page.navigate", { url: site.entryUrl }).catch((err: unknown) => {
      log?.warn({ err: String(err) }, "navigation failed");
    });
    await bounded(navigation, Math.max(0, renderDeadline - Date.now()), undefined);
    const watch = { settleMs: timeouts.settleMs, holdMs: timeouts.quietMs };
    let idleSince = 0;
    let lastSample = 0;
    let probe: ProbedMotion | undefined;
    let probing: Promise<void> | undefined;
    let lastProbe = 0;
    let stillMoving = false;
    let ended = "deadline";
    const evidence = (now: number): MotionEvidence => ({
      now, renderStart, loaded: events.artifact.loadTs !== undefined, networkBusy: net.busy(), networkIdleSince: idleSince,
      lastChange: Math.max(screencast.lastChange(), events.artifact.loadLocal), changes: screencast.localChanges(),
      realms: realms.all(), probe, images: net.animatedImages(),
    });
    for (;;) {
      const now = Date.now();
      if (signal?.aborted || events.artifact.crashed) { ended = "aborted"; break; }
      if (now >= renderDeadline) {
        stillMoving = movingAtDeadline(evidence(now), watch);
        break;
      }
      if (now - lastSample >= 1_000) {
        lastSample = now;
        void sampleMetrics();
      }
      if (!net.busy()) idleSince ||= now;
      else idleSince = 0;
      // The DOM probe (animations, videos) runs in the isolated worlds a few times a second, never two at once.
      if (!probing && now - lastProbe >= 200) {
        lastProbe = now;
        probing = probeMotion(worlds, 1_000).then((p) => { probe = p; }, () => {}).finally(() => { probing = undefined; });
      }
      const verdict = motionVerdict(evidence(now), watch);
      if (verdict.done) {
        stillMoving = verdict.stillMoving;
        ended = verdict.reason;
        break;
      }
      await sleep(50, signal);
    }
    const endedAt = Date.now();
    phaseMs.render = endedAt - renderStart;
    let timedOut = events.artifact.loadTs === undefined || events.artifact.crashed || !!signal?.aborted;
    await screencast.stop();

    // ---- measuring phase: each step bounded; a page whose main thread is stuck gets its script terminated once.
    const measureDeadline = Date.now() + timeouts.stepMs * 4;
    const budget = () => Math.max(500, Math.min(timeouts.stepMs, measureDeadline - Date.now()));
    const crashed = events.artifact.crashed;
    const alive = () => worlds.evaluate(mainFrameId, "1", 2_000);
    let responsive = !crashed && (await alive()) !== undefined;
    if (!responsive && !crashed) {
      await bounded(client.send("Runtime.terminateExecution"), 2_000, undefined);
      responsive = (await alive()) !== undefined;
      if (responsive) timedOut = true;
    }
    let layout: TagArtifacts["layout"];
    let resized: TagArtifacts["resized"];
    let screenshotPng: Uint8Array | undefined;
    let localStorage: TagArtifacts["localStorage"] = [];
    if (responsive) {
      await sampleMetrics();
      layout = await measureLayout(client, worlds, mainFrameId, budget());
      const box = layout?.box;
      const clip = box
        ? { x: box.x, y: box.y, width: Math.max(1, box.width), height: Math.max(1, box.height), scale: 1 }
        : { x: 0, y: 0, width: Math.min(300, profile.width), height: Math.min(250, profile.height), scale: 1 };
      const shot = await bounded(client.send("Page.captureScreenshot", { format: "png", clip, captureBeyondViewport: true }), budget(), undefined);
      if (shot) screenshotPng = new Uint8Array(Buffer.from(shot.data, "base64"));
      const painted = paintedSize(box ?? null);
      if (painted.width >= 300) {
        // Responsiveness: lay the page out at a viewport narrower than the creative (phone width at most) and see
        // whether the creative follows.
        const narrow = Math.max(200, Math.min(320, painted.width - 20));
        const ok = await bounded(client.send("Emulation.setDeviceMetricsOverride", {
          width: narrow, height: profile.height, deviceScaleFactor: profile.deviceScaleFactor, mobile: profile.isMobile,
        }).then(() => true), budget(), false);
        if (ok) {
          // Two frames let resize listeners and media queries re-lay the creative out before it is measured.
          await worlds.evaluate(mainFrameId, TWO_FRAMES, budget(), true);
          const l2 = await measureLayout(client, worlds, mainFrameId, budget());
          if (l2) resized = { viewportWidth: narrow, width: paintedSize(l2.box).width };
          await bounded(client.send("Emulation.setDeviceMetricsOverride", {
            width: profile.width, height: profile.height, deviceScaleFactor: profile.deviceScaleFactor, mobile: profile.isMobile,
          }), budget(), undefined);
          await worlds.evaluate(mainFrameId, TWO_FRAMES, budget(), true);
        }
      }
      localStorage = await readLocalStorage(worlds, budget());
    }
    const cookies = await bounded(client.send("Network.getAllCookies"), budget(), undefined);
    phaseMs.measure = Date.now() - endedAt;

    // ---- click-through (v3): only when there is something to click.
    const landingStart = Date.now();
    const creativeRequestCount = net.artifact.requests.length;
    const creativeMixed = net.artifact.mixedContent.length;
    let landing: TagArtifacts["landing"];
    if (captureLanding && responsive && layout?.click) {
      phase = "click";
      events.stop();
      landing = await bounded(
        captureLandingPage({
          page, client, context, worlds, mainFrameId, point: layout.click,
          waitMs: timeouts.landingMs, stepMs: timeouts.stepMs,
          nextTopNavigation: () => new Promise<string>((resolve) => topNavWaiters.push(resolve)),
          inflightSince: (i) => net.inflightSince(i),
          requestCount: () => net.artifact.requests.length,
          clickTimers: () => realms.afterClick(),
        }),
        timeouts.landingMs + timeouts.stepMs * 3,
        { tab: "none", url: "", title: "", working: false, evidence: "landing step timed out" },
      );
    } else if (captureLanding) {
      landing = { tab: "none", url: "", title: "", working: false, evidence: "nothing to click" };
    }
    phase = "done";
    events.stop();
    phaseMs.landing = Date.now() - landingStart;
    context.off("targetcreated", onTarget);
    await bounded(net.settle(), 2_000, undefined);
    log?.info({ render_end: ended, still_moving: stillMoving }, "render watch");

    const art: TagArtifacts = {
      profile, site, requests: net.artifact.requests, mixedContent: net.artifact.mixedContent.slice(0, creativeMixed),
      navTs: net.artifact.navTs, navWallMs: net.artifact.navWallTime !== undefined ? net.artifact.navWallTime * 1000 : undefined,
      events: events.artifact, paints, pixelChanges: screencast.artifact.changes, stillMoving, usesDocumentWrite, videoPlayed,
      cookies: (cookies?.cookies ?? []).map((c) => ({ ...c, sameSite: c.sameSite })),
      localStorage, layout, resized, cpuMs, heapBytes, landing, timedOut, blockedNavigations,
      blockedHosts: new Map(proxy.blocked.map((b) => [b.host, b.reason])),
      resolvedIp: (h) => proxy.resolvedIp(h),
      creativeRequestCount,
    };
    return { art, phaseMs, screenshotPng, landingShot: landing?.screenshotJpeg };
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

// Resolves after two rendered frames; the 500 ms fallback covers a page whose rendering is starved.
const TWO_FRAMES = `new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(() => r(true))); setTimeout(() => r(false), 500); })`;

const LOCAL_STORAGE = "(() => { try { return Object.entries(localStorage).slice(0, 200); } catch (e) { return []; } })()";

/** key/value pairs of window.localStorage in every frame (hence every origin) the creative used. */
async function readLocalStorage(worlds: ProbeWorlds, stepMs: number): Promise<Array<{ key: string; value: string }>> {
  const seen = new Map<string, { key: string; value: string }>();
  const deadline = Date.now() + stepMs;
  for (const frame of await worlds.frames()) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const entries = await worlds.evaluate<Array<[string, string]>>(frame.id, LOCAL_STORAGE, Math.min(left, 2_000));
    let origin = "";
    try {
      origin = new URL(frame.url).origin;
    } catch { /* about:blank shares its parent's storage */ }
    for (const [key, value] of entries ?? []) seen.set(`${origin}\u0000${key}`, { key: truncate(String(key), 1000), value: truncate(String(value), 4096) });
  }
  return [...seen.values()];
}

export { SYNTHETIC_ORIGIN };
