import { randomBytes } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { CreativeType, TagReportSchema, type ScanJob, type TagReport } from "@cva/contracts";
import {
  machineCpu, machineRam, startEgressProxy,
  type ArtifactSink, type EgressProxy, type OutboundPolicy,
} from "@cva/platform";
import type { BrowserContext, CDPSession, Page, Protocol, Target } from "puppeteer-core";
import type { BrowserPool } from "./browser-pool.ts";
import { DEFAULT_TIMEOUTS, SYNTHETIC_ORIGIN, deviceProfile, primaryLanguage, type DeviceProfile, type ScanTimeouts } from "./config.ts";
import { blockedByAdblock } from "./fields/adblock.ts";
import { declaredSize, hasVisualArtifacts, mobileFriendly, paintedSize } from "./fields/dimensions.ts";
import { decodePng, dominantColor, hasBorder, thumbnailJpeg } from "./fields/image.ts";
import { isPixel } from "./fields/is-pixel.ts";
import { loadSize } from "./fields/load-size.ts";
import { missingAssets } from "./fields/missing-assets.ts";
import { sslCompliance } from "./fields/ssl.ts";
import { thirdPartyAdServer } from "./fields/third-party-ad-server.ts";
import { animationDuration, sinceNav, timeToVisualStart } from "./fields/timing.ts";
import { createMotionTracker } from "./gatherers/motion.ts";
import { instrumentSource, type PageSignal } from "./gatherers/instrument.ts";
import { captureLandingPage, type LandingArtifact } from "./gatherers/landing-page.ts";
import { LAYOUT_SCRIPT, type LayoutArtifact } from "./gatherers/layout.ts";
import { gatherNetwork, type RequestRecord } from "./gatherers/network.ts";
import { gatherScreencast } from "./gatherers/screencast.ts";
import { buildSyntheticSite, type SyntheticSite } from "./synthetic-origin.ts";
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

const MAX_CONSOLE = 200;
const MAX_DIALOGS = 50;

/** Everything gathered during one scan: plain data, from which the report fields are computed. */
interface Artifacts {
  profile: DeviceProfile;
  site: SyntheticSite;
  requests: RequestRecord[];
  navTs?: number;
  navWallMs?: number;
  dclTs?: number;
  loadTs?: number;
  paints: number[];
  pixelChanges: number[];
  stillMoving: boolean;
  usesDocumentWrite: boolean;
  videoPlayed: boolean;
  frames: number;
  dialogs: Array<{ type: string; message: string }>;
  consoleErrors: string[];
  consoleWarnings: string[];
  cookies: Protocol.Network.Cookie[];
  localStorage: Array<{ key: string; value: string }>;
  layout?: LayoutArtifact;
  resized?: { viewportWidth: number; width: number };
  screenshotPng?: Uint8Array;
  cpuMs: number;
  heapBytes: number;
  landing?: LandingArtifact;
  timedOut: boolean;
  blockedNavigations: Set<string>;
  /** Milliseconds spent per phase, for the scan log (where an operator looks first when scans get slow). */
  phaseMs: { setup: number; render: number; measure: number; landing: number };
  /** Number of requests before the click-through: later ones belong to the landing page, not the creative. */
  creativeRequestCount?: number;
}

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
    try {
      proxy = await startProxy(deps.policy);
      // `<-loopback>` removes Chromium's implicit proxy bypass for localhost/127.0.0.1: loopback must obey the policy too.
      context = await setup(lease.browser.createBrowserContext({
        proxyServer: proxy.url,
        proxyBypassList: ["<-loopback>"],
        downloadBehavior: { policy: "deny" },
      }));
      const art = await gather(job, context, proxy, lease.chromeMajor, t0, signal, log);
      const report = await buildReport(job, art, proxy, t0);
      log?.info({ ms: Date.now() - t0, phase_ms: art.phaseMs, timed_out: art.timedOut, requests: art.requests.length }, "tag scanned");
      return report;
    } catch (err) {
      if (!lease.browser.connected || err instanceof BrowserWedgedError) broken = true;
      log?.error({ err: String(err) }, "tag scan failed");
      throw err;
    } finally {
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

  async function gather(
    job: ScanJob, context: BrowserContext, proxy: EgressProxy, chromeMajor: string, t0: number,
    signal: AbortSignal | undefined, log: ScanLogger | undefined,
  ): Promise<Artifacts> {
    const profile = deviceProfile(job, chromeMajor);
    const site = buildSyntheticSite(job);
    const captureLanding = job.input.case === "tag" && job.input.value.captureLandingPage;
    let renderDeadline = t0 + timeouts.renderMs;
    if (job.deadlineUnixMs > 0n) {
      // Leave room after the render phase for measuring and replying before the requester gives up.
      const hard = Number(job.deadlineUnixMs) - timeouts.stepMs * 2 - (captureLanding ? timeouts.landingMs : 0);
      renderDeadline = Math.max(t0 + 1_000, Math.min(renderDeadline, hard));
    }

    const art: Artifacts = {
      profile, site, requests: [], paints: [], pixelChanges: [], stillMoving: false, usesDocumentWrite: false,
      videoPlayed: false, frames: 0, dialogs: [], consoleErrors: [], consoleWarnings: [], cookies: [], localStorage: [],
      cpuMs: 0, heapBytes: 0, timedOut: false, blockedNavigations: new Set(),
      phaseMs: { setup: 0, render: 0, measure: 0, landing: 0 },
    };
    let phase: "render" | "click" | "done" = "render";
    let crashed = false;

    // Popups: closed at once while the creative renders (the browser's popup blocker already refuses those without a
    // user gesture); during the click-through the landing-page gatherer takes the new tab instead.
    const onTarget = (t: Target) => {
      // Only popups (targets with an opener): the scan's own page is created in this context too.
      if (t.type() !== "page" || phase === "click" || !t.opener()) return;
      void t.page().then((p) => p?.close().catch(() => {}), () => {});
    };
    context.on("targetcreated", onTarget);

    // A browser that cannot even open a tab is wedged: fail fast and let the pool replace it.
    const page = await setup(context.newPage());
    const client = await setup(page.createCDPSession());
    const binding = `__cva_${randomBytes(6).toString("hex")}`;

    const net = gatherNetwork(client, { isSynthetic: (u) => site.respond(u) !== undefined });
    art.requests = net.artifact.requests;
    const screencast = gatherScreencast(client, { width: profile.width, height: profile.height });
    const motion = createMotionTracker();

    client.on("Runtime.bindingCalled", (e: Protocol.Runtime.BindingCalledEvent) => {
      if (e.name !== binding || phase !== "render") return;
      let msg: PageSignal;
      try {
        msg = JSON.parse(e.payload) as PageSignal;
      } catch {
        return;
      }
      if (msg.t === "motion") motion.note(msg);
      else if (msg.t === "dw") art.usesDocumentWrite = true;
      else if (msg.t === "video") art.videoPlayed = true;
      else if (msg.t === "paint" && typeof msg.at === "number" && art.paints.length < 100) art.paints.push(msg.at);
    });
    client.on("Page.frameAttached", (e: Protocol.Page.FrameAttachedEvent) => {
      if (e.parentFrameId && phase === "render") art.frames++;
    });
    let mainFrameId = "";
    client.on("Page.domContentEventFired", (e: Protocol.Page.DomContentEventFiredEvent) => {
      if (phase === "render") art.dclTs ??= e.timestamp;
    });
    let loadLocal = 0;
    client.on("Page.loadEventFired", (e: Protocol.Page.LoadEventFiredEvent) => {
      if (phase === "render" && art.loadTs === undefined) {
        art.loadTs = e.timestamp;
        loadLocal = Date.now();
      }
    });
    client.on("Page.javascriptDialogOpening", (e: Protocol.Page.JavascriptDialogOpeningEvent) => {
      if (phase === "render" && art.dialogs.length < MAX_DIALOGS) art.dialogs.push({ type: e.type, message: truncate(e.message, 1000) });
      // Dismiss (cancel) dialogs; a beforeunload is accepted so that the page can always be closed.
      client.send("Page.handleJavaScriptDialog", { accept: e.type === "beforeunload" }).catch(() => {});
    });
    client.on("Runtime.consoleAPICalled", (e: Protocol.Runtime.ConsoleAPICalledEvent) => {
      // Only the creative's messages: the landing page's, after the click, are not.
      if (phase !== "render" || (e.type !== "error" && e.type !== "warning" && e.type !== "assert")) return;
      const text = truncate(e.args.map(remoteText).join(" "));
      const list = e.type === "warning" ? art.consoleWarnings : art.consoleErrors;
      if (list.length < MAX_CONSOLE) list.push(text);
    });
    client.on("Runtime.exceptionThrown", (e: Protocol.Runtime.ExceptionThrownEvent) => {
      if (phase !== "render") return;
      const d = e.exceptionDetails;
      const text = d.exception?.description ?? (d.exception ? remoteText(d.exception) : d.text);
      if (art.consoleErrors.length < MAX_CONSOLE) art.consoleErrors.push(truncate(text.startsWith("Uncaught") ? text : `Uncaught ${text}`));
    });
    client.on("Inspector.targetCrashed", () => {
      crashed = true;
      if (art.consoleErrors.length < MAX_CONSOLE) art.consoleErrors.push("The creative's renderer crashed (out of memory or killed)");
    });

    // Interception: the synthetic origin (and the host page at page_url) are answered here; everything else
    // continues to the network through the egress proxy. Top-frame navigations away from the creative are refused
    // while it renders (an auto-redirecting tag would otherwise replace itself); non-http(s) ones always.
    let topNavigations = 0;
    const topNavWaiters: Array<(url: string) => void> = [];
    client.on("Fetch.requestPaused", (e: Protocol.Fetch.RequestPausedEvent) => {
      const url = e.request.url;
      const isTopDoc = e.resourceType === "Document" && e.frameId === mainFrameId;
      if (isTopDoc) {
        topNavigations++;
        const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
        const isEntry = topNavigations === 1 || site.respond(url) !== undefined;
        if ((scheme !== "http" && scheme !== "https") || (phase === "render" && !isEntry) || phase === "done") {
          art.blockedNavigations.add(url);
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

    const tree = await client.send("Page.getFrameTree");
    mainFrameId = tree.frameTree.frame.id;
    await Promise.all([
      client.send("Page.enable"),
      client.send("Runtime.enable"),
      client.send("Network.enable", { maxTotalBufferSize: 50_000_000, maxResourceBufferSize: 5_000_000 }),
      client.send("Performance.enable", { timeDomain: "timeTicks" }),
      client.send("Inspector.enable").catch(() => {}),
      client.send("Runtime.addBinding", { name: binding }),
      client.send("Page.addScriptToEvaluateOnNewDocument", { source: instrumentSource(binding) }),
      client.send("Network.setCacheDisabled", { cacheDisabled: true }),
      client.send("Emulation.setDeviceMetricsOverride", {
        width: profile.width, height: profile.height, deviceScaleFactor: profile.deviceScaleFactor, mobile: profile.isMobile,
      }),
      client.send("Emulation.setTouchEmulationEnabled", { enabled: profile.hasTouch, maxTouchPoints: profile.hasTouch ? 5 : 1 }),
      // acceptLanguage (a plain list; Chromium adds q-values itself) drives navigator.language(s); the header then
      // carries exactly the targeting value.
      client.send("Emulation.setUserAgentOverride", { userAgent: profile.userAgent, acceptLanguage: languageList(profile.language), platform: profile.platform }),
      client.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Language": profile.language } }),
      client.send("Emulation.setLocaleOverride", { locale: primaryLanguage(profile.language) }).catch(() => {}),
      client.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] }),
    ]);
    await screencast.start().catch(() => {});

    // ---- render phase: navigate, then watch until loaded, network idle and pixels still (or the deadline).
    const sampleMetrics = async () => {
      const m = await bounded(client.send("Performance.getMetrics"), 2_000, undefined);
      if (!m) return;
      const get = (n: string) => m.metrics.find((x) => x.name === n)?.value ?? 0;
      art.cpuMs = Math.max(art.cpuMs, Math.round(get("TaskDuration") * 1000));
      art.heapBytes = Math.max(art.heapBytes, Math.round(get("JSHeapUsedSize")));
    };
    const renderStart = Date.now();
    art.phaseMs.setup = renderStart - t0;
    const navigation = client.send("Page.navigate", { url: site.entryUrl }).catch((err: unknown) => {
      log?.warn({ err: String(err) }, "navigation failed");
    });
    await bounded(navigation, Math.max(0, renderDeadline - Date.now()), undefined);
    let idleSince = 0;
    let lastSample = 0;
    let settled = false;
    for (;;) {
      const now = Date.now();
      if (signal?.aborted || crashed || now >= renderDeadline) break;
      if (now - lastSample >= 1_000) {
        lastSample = now;
        void sampleMetrics();
      }
      const loaded = art.loadTs !== undefined;
      if (loaded && net.inflight() === 0) idleSince ||= now;
      else idleSince = 0;
      const lastChange = Math.max(screencast.lastChange(), loadLocal);
      const still = now - lastChange;
      // Network idle for 500 ms and pixels still for the quiet window — or, when every frame proves nothing is
      // scheduled (no timers, intervals, animations or rAF), both for just the settle time: nothing can start a
      // request or move a pixel then, short of an event from outside, and none comes in a scan.
      const idleFor = loaded && idleSince ? now - idleSince : -1;
      if (idleFor >= 500 && still >= timeouts.quietMs) break;
      if (idleFor >= timeouts.settleMs && still >= timeouts.settleMs && motion.calm(now, timeouts.settleMs)) {
        settled = true;
        break;
      }
      await sleep(100, signal);
    }
    const endedAt = Date.now();
    art.phaseMs.render = endedAt - renderStart;
    art.timedOut = art.loadTs === undefined || crashed || !!signal?.aborted;
    // Pixels that changed within the quiet window before the end mean the animation was still running — unless the
    // page proved nothing more was scheduled to move.
    art.stillMoving = !settled && endedAt - Math.max(screencast.lastChange(), 1) < timeouts.quietMs && art.loadTs !== undefined;
    if (art.loadTs === undefined) art.stillMoving = screencast.lastChange() > 0 && endedAt - screencast.lastChange() < timeouts.quietMs;
    await screencast.stop();
    art.pixelChanges = screencast.artifact.changes;

    // ---- measuring phase: each step bounded; a page whose main thread is stuck gets its script terminated once.
    // Each measuring step is bounded by stepMs, and all of them together by a few steps' worth.
    const measureDeadline = Date.now() + timeouts.stepMs * 4;
    const budget = () => Math.max(500, Math.min(timeouts.stepMs, measureDeadline - Date.now()));
    const step = timeouts.stepMs;
    let responsive = !crashed && (await bounded(evaluate(client, "1"), 2_000, undefined)) !== undefined;
    if (!responsive && !crashed) {
      await bounded(client.send("Runtime.terminateExecution"), 2_000, undefined);
      responsive = (await bounded(evaluate(client, "1"), 2_000, undefined)) !== undefined;
      if (responsive) art.timedOut = true;
    }
    if (responsive) {
      await sampleMetrics();
      art.layout = await bounded(evaluate<LayoutArtifact>(client, LAYOUT_SCRIPT), budget(), undefined);
      const box = art.layout?.box;
      const clip = box
        ? { x: box.x, y: box.y, width: Math.max(1, box.width), height: Math.max(1, box.height), scale: 1 }
        : { x: 0, y: 0, width: Math.min(300, profile.width), height: Math.min(250, profile.height), scale: 1 };
      const shot = await bounded(
        client.send("Page.captureScreenshot", { format: "png", clip, captureBeyondViewport: true }),
        budget(), undefined,
      );
      if (shot) art.screenshotPng = new Uint8Array(Buffer.from(shot.data, "base64"));
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
          await bounded(evaluate(client, TWO_FRAMES, true), budget(), undefined);
          const l2 = await bounded(evaluate<LayoutArtifact>(client, LAYOUT_SCRIPT), budget(), undefined);
          if (l2) art.resized = { viewportWidth: narrow, width: paintedSize(l2.box).width };
          await bounded(client.send("Emulation.setDeviceMetricsOverride", {
            width: profile.width, height: profile.height, deviceScaleFactor: profile.deviceScaleFactor, mobile: profile.isMobile,
          }), budget(), undefined);
          await bounded(evaluate(client, TWO_FRAMES, true), budget(), undefined);
        }
      }
      art.localStorage = await readLocalStorage(page, budget());
    }
    const cookies = await bounded(client.send("Network.getAllCookies"), budget(), undefined);
    art.cookies = cookies?.cookies ?? [];

    art.phaseMs.measure = Date.now() - endedAt;
    const landingStart = Date.now();
    if (captureLanding && responsive && art.layout?.click) {
      art.creativeRequestCount = art.requests.length;
      phase = "click";
      art.landing = await bounded(
        captureLandingPage({
          page, client, context, point: art.layout.click,
          viewport: { width: profile.width, height: profile.height, deviceScaleFactor: profile.deviceScaleFactor },
          waitMs: timeouts.landingMs, stepMs: step,
          nextTopNavigation: () => new Promise<string>((resolve) => topNavWaiters.push(resolve)),
          requestCount: () => art.requests.length,
        }),
        timeouts.landingMs + step * 3,
        { tab: "none", url: "", title: "", working: false },
      );
    } else if (captureLanding) {
      art.landing = { tab: "none", url: "", title: "", working: false };
    }
    phase = "done";
    art.phaseMs.landing = Date.now() - landingStart;
    context.off("targetcreated", onTarget);
    await bounded(net.settle(), 2_000, undefined);
    art.navTs = net.artifact.navTs;
    art.navWallMs = net.artifact.navWallTime !== undefined ? net.artifact.navWallTime * 1000 : undefined;
    return art;
  }

  async function buildReport(job: ScanJob, art: Artifacts, proxy: EgressProxy, t0: number): Promise<TagReport> {
    const { site, profile } = art;
    // The wrapper host page is ours, not the creative's: it is left out of the network list (the tag's own bytes
    // are added to the initial load instead). Requests of the landing page are not the creative's either.
    // The browser's own favicon fetch for the top document is not the creative's either.
    const favicon = new URL("/favicon.ico", site.entryUrl).href;
    const creativeRequests = art.requests.slice(0, art.creativeRequestCount ?? art.requests.length).filter(
      (r) =>
        !(site.hostPageIsWrapper && r.resourceType === "document" && r.synthetic && r.url === site.entryUrl) &&
        !(r.url === favicon && r.resourceType === "other"),
    );
    const blockedHosts = new Map(proxy.blocked.map((b) => [b.host, b.reason]));
    const responses = creativeRequests.map((r) => {
      let hostname = "";
      try {
        hostname = new URL(r.url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
      } catch { /* keep empty */ }
      let failure = r.failure ?? "";
      if (art.blockedNavigations.has(r.url)) failure = "top-frame navigation refused (the creative tried to navigate the page away)";
      else if (blockedHosts.has(hostname)) failure = `refused by the outbound policy: ${blockedHosts.get(hostname)}`;
      const started = art.navTs !== undefined ? Math.max(0, Math.round((r.startTs - art.navTs) * 1000)) : 0;
      return {
        bytes: BigInt(r.encodedBytes),
        headers: r.headers,
        isPixel: isPixel(r),
        method: r.method,
        resourceType: r.resourceType,
        serverIp: r.synthetic ? "" : (proxy.resolvedIp(hostname) ?? ""),
        ssl: /^(https|wss):/i.test(r.url),
        ...(r.security ? { sslInfo: { protocol: r.security.protocol, validFrom: BigInt(Math.round(r.security.validFrom)), validTo: BigInt(Math.round(r.security.validTo)) } } : {}),
        status: r.status ?? 0,
        statusText: r.statusText ?? "",
        timingMs: BigInt(r.endTs !== undefined ? Math.max(0, Math.round((r.endTs - r.startTs) * 1000)) : 0),
        url: r.url,
        startedMs: BigInt(started),
        failure,
      };
    });
    const markupBytes = site.hostPageIsWrapper ? Buffer.byteLength(site.markup) : 0;
    const sizes = loadSize(creativeRequests, art.loadTs, markupBytes);
    const ssl = sslCompliance(creativeRequests);
    const painted = paintedSize(art.layout?.box ?? null);
    const declared = declaredSize(site.markup, art.layout?.adSizeMeta);
    const rendered = painted.width > 0 && painted.height > 0 && (art.paints.length > 0 || art.pixelChanges.length > 1);
    const ttvs = timeToVisualStart(art.navWallMs, art.paints, art.pixelChanges[1], rendered);
    const firstPaintWall = ttvs >= 0 && art.navWallMs !== undefined ? art.navWallMs + ttvs : undefined;
    const missing = missingAssets(creativeRequests.filter((r) => !art.blockedNavigations.has(r.url)));

    // Screenshot: the creative's box as PNG; a JPEG thumbnail; dominant colour; border from its pixels.
    let screenshot: { highres: object; thumbnail: object } | undefined;
    let border = false;
    if (art.screenshotPng) {
      try {
        const raster = decodePng(art.screenshotPng);
        const color = dominantColor(raster);
        if (rendered && art.layout?.box) border = hasBorder(raster, raster.width / Math.max(1, art.layout.box.width));
        const thumb = thumbnailJpeg(raster, 300);
        const [hiId, thId] = await Promise.all([
          deps.artifacts.put(art.screenshotPng, "image/png"),
          deps.artifacts.put(thumb, "image/jpeg"),
        ]);
        screenshot = {
          highres: { id: hiId, bytes: BigInt(art.screenshotPng.byteLength), mimeType: "image/png", color },
          thumbnail: { id: thId, bytes: BigInt(thumb.byteLength), mimeType: "image/jpeg", color },
        };
      } catch {
        /* an undecodable screenshot leaves the field empty */
      }
    }
    let landingPage: object | undefined;
    if (art.landing) {
      let shot: object | undefined;
      if (art.landing.screenshotJpeg) {
        const id = await deps.artifacts.put(art.landing.screenshotJpeg, "image/jpeg");
        shot = { id, bytes: BigInt(art.landing.screenshotJpeg.byteLength), mimeType: "image/jpeg", color: "" };
      }
      landingPage = { tab: art.landing.tab, title: art.landing.title, url: art.landing.url, working: art.landing.working, ...(shot ? { screenshot: shot } : {}) };
    }
    const urls = creativeRequests.map((r) => r.url);
    const hasVideo = art.videoPlayed || creativeRequests.some(
      (r) => r.resourceType === "media" && r.status !== undefined && r.status < 400 && /^video\//.test(r.mimeType ?? r.headers["content-type"] ?? ""),
    );

    return create(TagReportSchema, {
      jobId: job.jobId,
      thirdPartyAdServer: thirdPartyAdServer(urls, site.markup),
      animationDurationMs: BigInt(rendered ? animationDuration(firstPaintWall, art.pixelChanges, art.stillMoving) : 0),
      blockedByAdblock: blockedByAdblock(creativeRequests.filter((r) => !r.synthetic || !site.hostPageIsWrapper), site.markup, site.entryUrl),
      console: { errors: art.consoleErrors, warnings: art.consoleWarnings },
      cookies: art.cookies.map((c) => ({
        domain: c.domain, expires: c.session ? -1 : c.expires, httpOnly: c.httpOnly, name: c.name, path: c.path,
        priority: c.priority, ...(c.sameSite ? { sameSite: c.sameSite } : {}), secure: c.secure, session: c.session,
        size: c.size, value: c.value,
      })),
      cpuUsageMs: BigInt(art.cpuMs),
      creativeRendered: rendered,
      dialogs: art.dialogs,
      dimensions: painted,
      declaredDimensions: declared,
      domContentLoadedMs: BigInt(sinceNav(art.navTs, art.dclTs)),
      hasBorder: border,
      hasVideo,
      iframes: art.frames,
      ...(landingPage ? { landingPage } : {}),
      localStorage: art.localStorage,
      memoryUsageBytes: BigInt(art.heapBytes),
      meta: {
        apiVersion: job.apiVersion,
        cpu: machineCpu(),
        creativeType: CreativeType.AD_TAG,
        device: profile.device,
        language: profile.language,
        ram: machineRam(),
        scanDurationSeconds: Math.round((Date.now() - t0) / 10) / 100,
        serverLocation: deps.location,
        timestamp: BigInt(Math.floor(t0 / 1000)),
        ua: profile.userAgent,
      },
      missingAssets: missing,
      mobileFriendly: mobileFriendly(painted, art.resized ?? null),
      network: {
        loadSize: { initialLoad: BigInt(sizes.initialLoad), hostInitiatedSubload: BigInt(sizes.hostInitiatedSubload), total: BigInt(sizes.total) },
        measurementPixels: responses.filter((r) => r.isPixel).length,
        responses,
      },
      ...(screenshot ? { screenshot } : {}),
      ssl,
      timeToVisualStartMs: BigInt(ttvs),
      usesDocumentWrite: art.usesDocumentWrite,
      visualArtifacts: hasVisualArtifacts(declared, painted),
      timedOut: art.timedOut,
    } as Parameters<typeof create<typeof TagReportSchema>>[1]);
  }

  return { scan };
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

function remoteText(o: Protocol.Runtime.RemoteObject): string {
  if (o.type === "string") return String(o.value);
  if (o.type === "undefined") return "undefined";
  if (o.value !== undefined) return typeof o.value === "object" ? JSON.stringify(o.value) : String(o.value);
  return o.description ?? o.unserializableValue ?? o.type;
}

// Resolves after two rendered frames; the 500 ms fallback covers a creative that replaced or starves rAF.
const TWO_FRAMES = `new Promise((r) => { const raf = window.requestAnimationFrame.bind(window); raf(() => raf(() => r(true))); setTimeout(() => r(false), 500); })`;

async function evaluate<T>(client: CDPSession, expression: string, awaitPromise = false): Promise<T> {
  const r = await client.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise });
  if (r.exceptionDetails) throw new Error(r.exceptionDetails.text);
  return r.result.value as T;
}

/** key/value pairs of window.localStorage in every frame (hence every origin) the creative used. */
async function readLocalStorage(page: Page, stepMs: number): Promise<Array<{ key: string; value: string }>> {
  const seen = new Map<string, { key: string; value: string }>();
  const deadline = Date.now() + stepMs;
  for (const frame of page.frames().slice(0, 50)) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const entries = await bounded(
      frame.evaluate("(() => { try { return Object.entries(localStorage).slice(0, 200); } catch (e) { return []; } })()") as Promise<Array<[string, string]>>,
      Math.min(left, 2_000), [],
    );
    let origin = "";
    try {
      origin = new URL(frame.url()).origin;
    } catch { /* about:blank shares its parent's storage */ }
    for (const [key, value] of entries ?? []) seen.set(`${origin}\u0000${key}`, { key: String(key), value: truncate(String(value), 4096) });
  }
  return [...seen.values()];
}

export { SYNTHETIC_ORIGIN };
