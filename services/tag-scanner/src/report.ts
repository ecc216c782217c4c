import { create } from "@bufbuild/protobuf";
import { CreativeType, Measurement_Confidence, TagReportSchema, type ScanJob, type TagReport } from "@cva/contracts";
import type { DeviceProfile } from "./config.ts";
import { blockedByAdblock } from "./fields/adblock.ts";
import { declaredSize, hasVisualArtifacts, mobileFriendly, paintedSize } from "./fields/dimensions.ts";
import { isPixel } from "./fields/is-pixel.ts";
import { loadSize } from "./fields/load-size.ts";
import { missingAssets } from "./fields/missing-assets.ts";
import { sslCompliance } from "./fields/ssl.ts";
import { thirdPartyAdServer } from "./fields/third-party-ad-server.ts";
import { CPU_PINNED_MS, cpuLoad, cpuPinned } from "./fields/cpu-load.ts";
import { type HeldAsset, measurementConfidence, type MeasurementOutcome } from "./fields/measurement.ts";
import type { HeavyAdRun } from "./heavy-ad/issue.ts";
import { buildAccessibility, type AccessibilityArtifacts } from "./fields/accessibility-report.ts";
import { animationDuration, sinceNav, timeToVisualStart } from "./fields/timing.ts";
import { clickPointField, filmStripField, type StoredFilmFrame } from "./fields/film-strip.ts";
import type { LandingArtifact } from "./gatherers/landing-page.ts";
import type { LayoutArtifact } from "./gatherers/layout.ts";
import type { ResizedLayout } from "./gatherers/measure.ts";
import type { RequestRecord } from "./gatherers/network.ts";
import type { PageEventsArtifact } from "./gatherers/page-events.ts";
import type { CpuSample, MetricsAnswer } from "./gatherers/performance.ts";
import type { FrameWait } from "./gatherers/render-watch.ts";
import type { SyntheticSite } from "./synthetic-origin.ts";
import type { ConsentRunArtifact } from "./privacy/artifact.ts";
import { privacyField } from "./privacy/report-field.ts";
import { hostOf, registrableDomain, vendorOfHost, type VendorDb } from "./privacy/vendors.ts";

/** Everything gathered during one scan: plain data, from which the report is a pure function. */
export interface TagArtifacts {
  profile: DeviceProfile;
  site: SyntheticSite;
  requests: RequestRecord[];
  /** URLs the creative wrote as http:// that Chromium blocked or upgraded (creative phase only). */
  mixedContent: string[];
  navTs?: number;
  navWallMs?: number;
  events: PageEventsArtifact;
  paints: number[];
  pixelChanges: number[];
  /** How far behind the page the screencast was at its last change, ms (screencast.ts). */
  captureLagMs?: number;
  /** Epoch ms when the page's visible finite animations were scheduled to end, as the watch's probes confirmed it. */
  scheduledMotionEnd?: number;
  stillMoving: boolean;
  usesDocumentWrite: boolean;
  videoPlayed: boolean;
  cookies: Array<{
    domain: string; expires: number; httpOnly: boolean; name: string; path: string; priority: string; sameSite?: string;
    secure: boolean; session: boolean; size: number; value: string;
  }>;
  localStorage: Array<{ key: string; value: string }>;
  layout?: LayoutArtifact;
  resized?: ResizedLayout;
  cpuMs: number;
  /**
   * The renderer main thread answered nothing after the render, not even once the creative's script was terminated:
   * a task held it, and cpuMs / cpuSeries hold only what it reported before (a lower bound).
   */
  cpuUnanswered?: boolean;
  heapBytes: number;
  /** The renderer main thread's starvation while the creative rendered (performance.ts), for `measurement`. */
  starvation: Array<{ at: number; ms: number }>;
  /** The render's (time, CPU time) samples (performance.ts), for `cpu`. */
  cpuSeries: CpuSample[];
  /** The render's getMetrics samples as the renderer answered them (performance.ts), for `measurement`. */
  answers?: MetricsAnswer[];
  /** The render watch's looks at the top document, each waiting for two rendered frames (render-watch.ts FrameWait). */
  frameWaits?: FrameWait[];
  /** The host's calibration scale (cpu-calibration.ts); undefined when the calibration was not available. */
  cpuScale?: number;
  /** Local ms when the render watch ended: when animation_duration was decided. */
  renderEndedAt: number;
  /**
   * ms the scanner's own process was kept from the CPU between two epoch ms (gatherers/loop-lag.ts), for
   * `measurement`: how late it may have made an asset. Undefined where not measured.
   */
  loopHeld?: (fromMs: number, toMs: number) => number;
  landing?: LandingArtifact;
  timedOut: boolean;
  blockedNavigations: Set<string>;
  /** Egress proxy: hosts it refused and the addresses it connected to. */
  blockedHosts: Map<string, string>;
  resolvedIp(host: string): string | undefined;
  /** Number of requests before the click-through: later ones belong to the landing page, not the creative. */
  creativeRequestCount?: number;
  /** Whom hosts belong to (vendor on each response, privacy). */
  vendors?: VendorDb;
  /** The consent states' runs (privacy/); undefined when they were not run. */
  consentRuns?: ConsentRunArtifact[];
  /** What the full run saw the creative look for of the consent signals (privacy/consent-sensor.ts). */
  consentSeen?: string[];
  /** The customer's allowed_domains (approved_vendors_only). */
  allowedDomains?: readonly string[];
  /** Photosensitivity frames, pause control, document checks (fields/accessibility-report.ts). */
  accessibility?: AccessibilityArtifacts;
  /** Epoch ms when the navigation to the creative started (local clock): the origin of worst_second_ms. */
  renderStartedAt?: number;
  /** Chrome's Heavy Ad Intervention on the creative in an ad frame (heavy-ad/run.ts); undefined on v2. */
  heavyAd?: HeavyAdRun;
}

/** What the upload step made of the images: measured in Node, stored by the artifact sink. */
export interface StoredImages {
  screenshot?: { highres: { id: string; bytes: number; color: string }; thumbnail: { id: string; bytes: number; color: string } };
  hasBorder: boolean;
  landingShot?: { id: string; bytes: number };
  /** The film strip's frames (film-strip-images.ts). */
  filmStrip?: StoredFilmFrame[];
  /** Why the screenshot (and with it has_border) is missing, for the scan log: never taken, or its analysis failed. */
  problem?: string;
}

export interface ReportContext {
  job: ScanJob;
  location: string;
  cpu: string;
  ram: string;
  startedMs: number;
  endedMs: number;
}

/**
 * The creative's own requests: not our wrapper page, not the placement's files (mraid.js), not the browser's favicon
 * fetch, not the landing page's.
 */
export function creativeRequests(art: Pick<TagArtifacts, "site" | "requests" | "creativeRequestCount">): RequestRecord[] {
  const { site } = art;
  const favicon = new URL("/favicon.ico", site.entryUrl).href;
  // The wrapper host page of a tag and the slot page of a framed bundle are ours.
  const ourPage = site.hostPageIsWrapper || site.slot !== undefined;
  return art.requests.slice(0, art.creativeRequestCount ?? art.requests.length).filter(
    (r) =>
      !(ourPage && r.resourceType === "document" && r.synthetic && r.url === site.entryUrl) &&
      !(r.synthetic && site.isContainerFile(r.url)) &&
      !(r.url === favicon && r.resourceType === "other"),
  );
}

/**
 * The creative's finished requests, each with when it arrived and how long the scanner's own process was kept from
 * the CPU while it loaded (measurement.ts). The host page and the synthetic origin's files count too: interception
 * answers them from the same event loop. Times come from Chromium's own clock (CDP timestamps put on navigation's
 * wall time), not from when this process got round to the event: a starved loop reads every event late.
 */
function heldAssets(art: TagArtifacts): HeldAsset[] {
  const { loopHeld, navTs, navWallMs } = art;
  if (!loopHeld || navTs === undefined || navWallMs === undefined) return [];
  const wall = (ts: number) => navWallMs + (ts - navTs) * 1000;
  const out: HeldAsset[] = [];
  // The creative's requests and the page carrying it (ours for a tag: its arrival gates every paint); not the
  // browser's favicon fetch, which a late answer never shows in the creative.
  const entry = art.requests.find((r) => r.resourceType === "document" && r.url === art.site.entryUrl);
  for (const r of [...(entry ? [entry] : []), ...creativeRequests(art).filter((r) => r !== entry)]) {
    if (!r.finished || r.endTs === undefined || r.failure !== undefined) continue;
    // A video or audio plays from its first bytes while the rest streams in for seconds: what its start waited on
    // ends with the response's headers (counting the whole stream would add up a busy worker's ordinary moments:
    // video-loop-paused-4s read 0.3 s alone on a loaded host, the SVG images < 0.25 s).
    const end = r.resourceType === "media" && r.responseTs !== undefined ? r.responseTs : r.endTs;
    const from = wall(r.startTs);
    const to = wall(end);
    // Named by its file (the reason's "image badge.svg"); a data: URL or the host page by its type alone.
    const segment = /^https?:/i.test(r.url) ? r.url.split(/[?#]/)[0]!.split("/").slice(3).filter(Boolean).pop() ?? "" : "";
    out.push({ name: `${r.resourceType}${segment ? ` ${segment.slice(0, 60)}` : ""}`, arrivedWallMs: to, heldMs: loopHeld(from, to) });
  }
  return out;
}

/** DOMContentLoaded of the creative's document, from its own request: for a framed bundle, the framed entry's. */
function domContentLoaded(art: TagArtifacts): number {
  const slot = art.site.slot;
  if (!slot) return sinceNav(art.navTs, art.events.dclTs);
  const doc = art.requests.find((r) => r.resourceType === "document" && r.url === slot.creativeUrl);
  return sinceNav(doc?.startTs, art.events.frameDcl.get(slot.creativeUrl));
}

/** `cpu` joins the low-confidence fields when the creative's thread was pinned by the host's contention (cpu-load.ts). */
function withCpuConfidence(m: MeasurementOutcome, pinned: { ms: number; starvedMs: number }): MeasurementOutcome {
  if (pinned.ms < CPU_PINNED_MS) return m;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return {
    confidence: "low",
    reasons: [...m.reasons, `the renderer had no idle moment for ${s(pinned.ms)} while kept from the CPU for ${s(pinned.starvedMs)}: cpu is a lower bound`],
    fields: [...m.fields, "cpu"],
  };
}

/**
 * A main thread that never answered after the render (a task held it to the end of the measure phase): what it ran
 * meanwhile was never reported, so cpu_usage (and cpu, when there is one) are lower bounds, not the creative's load.
 */
export function withCpuUnanswered(m: MeasurementOutcome, hasCpu: boolean): MeasurementOutcome {
  return {
    confidence: "low",
    reasons: [...m.reasons, "the renderer's main thread answered nothing after the render, even once the creative's script was terminated: cpu_usage counts only what it reported before, a lower bound"],
    fields: [...m.fields, "cpu_usage", ...(hasCpu && !m.fields.includes("cpu") ? ["cpu"] : [])],
  };
}

/** The vendor of a third-party host (first-party and unknown hosts have none). */
function vendorField(db: VendorDb | undefined, host: string, pageDomain: string) {
  if (!db || !host || registrableDomain(host) === pageDomain) return {};
  const v = vendorOfHost(db, host);
  return v ? { vendor: { name: v.name, category: v.category, gvlId: v.gvlId } } : {};
}

export function buildTagReport(ctx: ReportContext, art: TagArtifacts, images: StoredImages): TagReport {
  const { site, profile, job } = { ...art, job: ctx.job };
  const requests = creativeRequests(art);
  const pageDomain = registrableDomain(hostOf(site.entryUrl));
  const responses = requests.map((r) => {
    let hostname = "";
    try {
      hostname = new URL(r.url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
    } catch { /* keep empty */ }
    let failure = r.failure ?? "";
    if (art.blockedNavigations.has(r.url)) failure = "top-frame navigation refused (the creative tried to navigate the page away)";
    else if (art.blockedHosts.has(hostname)) failure = `refused by the outbound policy: ${art.blockedHosts.get(hostname)}`;
    if (r.writtenUrl && r.writtenUrl !== r.url) failure = failure ? `${failure}; written as ${r.writtenUrl}` : `upgraded by the browser from ${r.writtenUrl}`;
    if (r.truncated) failure = failure ? `${failure}; record truncated: ${r.truncated}` : `record truncated: ${r.truncated}`;
    const started = art.navTs !== undefined ? Math.max(0, Math.round((r.startTs - art.navTs) * 1000)) : 0;
    return {
      bytes: BigInt(r.encodedBytes),
      headers: r.headers,
      isPixel: isPixel(r),
      method: r.method,
      resourceType: r.resourceType,
      serverIp: r.synthetic ? "" : (art.resolvedIp(hostname) ?? ""),
      ssl: /^(https|wss):/i.test(r.url),
      ...(r.security ? { sslInfo: { protocol: r.security.protocol, validFrom: BigInt(Math.round(r.security.validFrom)), validTo: BigInt(Math.round(r.security.validTo)) } } : {}),
      status: r.status ?? 0,
      statusText: r.statusText ?? "",
      timingMs: BigInt(r.endTs !== undefined ? Math.max(0, Math.round((r.endTs - r.startTs) * 1000)) : 0),
      url: r.url,
      startedMs: BigInt(started),
      failure,
      ...vendorField(art.vendors, r.synthetic ? "" : hostname, pageDomain),
    };
  });
  const markupBytes = site.hostPageIsWrapper ? Buffer.byteLength(site.markup) : 0;
  const sizes = loadSize(requests, art.events.loadTs, markupBytes);
  const ssl = sslCompliance(requests, art.mixedContent);
  const painted = paintedSize(art.layout?.box ?? null);
  const declared = declaredSize(site.markup, art.layout?.adSizeMeta);
  const rendered = painted.width > 0 && painted.height > 0 && (art.paints.length > 0 || art.pixelChanges.length > 1);
  const ttvs = timeToVisualStart(art.navWallMs, art.paints, art.pixelChanges[1], rendered);
  const firstPaintWall = ttvs >= 0 && art.navWallMs !== undefined ? art.navWallMs + ttvs : undefined;
  const dcl = domContentLoaded(art);
  const motionTail = { captureLagMs: art.captureLagMs ?? 0, scheduledEnd: art.scheduledMotionEnd };
  const load = art.cpuScale !== undefined ? cpuLoad(art.cpuSeries, art.cpuScale, !art.stillMoving && !art.timedOut) : undefined;
  const timed = measurementConfidence({
    navWallMs: art.navWallMs, firstPaintWallMs: firstPaintWall, paints: art.paints, pixelChanges: art.pixelChanges,
    dclWallMs: dcl >= 0 && art.navWallMs !== undefined ? art.navWallMs + dcl : undefined,
    renderEndedAt: art.renderEndedAt, starvation: art.starvation, answers: art.answers, frameWaits: art.frameWaits, motionTail, assets: heldAssets(art),
    landingHeldMs: art.landing?.unfinished && art.loopHeld ? art.loopHeld(art.landing.unfinished.fromMs, art.landing.unfinished.toMs) : undefined,
  });
  const pinned = load ? withCpuConfidence(timed, cpuPinned(art.cpuSeries)) : timed;
  const measured = art.cpuUnanswered ? withCpuUnanswered(pinned, load !== undefined) : pinned;
  const missing = missingAssets(requests.filter((r) => !art.blockedNavigations.has(r.url)));
  const hasVideo = art.videoPlayed || requests.some(
    (r) => r.resourceType === "media" && r.status !== undefined && r.status < 400 && /^video\//.test(r.mimeType ?? r.headers["content-type"] ?? ""),
  );
  const landing = art.landing;
  const shot = images.screenshot;
  const animationMs = rendered ? animationDuration(firstPaintWall, art.pixelChanges, art.stillMoving, motionTail) : 0;

  return create(TagReportSchema, {
    jobId: job.jobId,
    thirdPartyAdServer: thirdPartyAdServer(requests.map((r) => r.url), site.markup),
    animationDurationMs: BigInt(animationMs),
    blockedByAdblock: blockedByAdblock(requests.filter((r) => !r.synthetic || !site.hostPageIsWrapper), site.markup, site.entryUrl),
    console: { errors: art.events.consoleErrors, warnings: art.events.consoleWarnings },
    cookies: art.cookies.map((c) => ({
      domain: c.domain, expires: c.session ? -1 : c.expires, httpOnly: c.httpOnly, name: c.name, path: c.path,
      priority: c.priority, ...(c.sameSite ? { sameSite: c.sameSite } : {}), secure: c.secure, session: c.session,
      size: c.size, value: c.value,
    })),
    cpuUsageMs: BigInt(art.cpuMs),
    ...(load ? { cpu: load } : {}),
    creativeRendered: rendered,
    dialogs: art.events.dialogs,
    dimensions: painted,
    declaredDimensions: declared,
    domContentLoadedMs: BigInt(dcl),
    hasBorder: rendered && images.hasBorder,
    hasVideo,
    // The slot frame a bundle is served in is ours, not an iframe the creative added.
    iframes: Math.max(0, art.events.frames - (site.slot ? 1 : 0)),
    ...(landing
      ? {
          landingPage: {
            tab: landing.tab, title: landing.title, url: landing.url, working: landing.working,
            screenshot: images.landingShot
              ? { id: images.landingShot.id, bytes: BigInt(images.landingShot.bytes), mimeType: "image/jpeg", color: "" }
              : { id: "", bytes: 0n, mimeType: "", color: "" },
          },
        }
      : {}),
    localStorage: art.localStorage,
    filmStrip: filmStripField(images.filmStrip),
    clickPoint: clickPointField(landing, art.layout),
    memoryUsageBytes: BigInt(art.heapBytes),
    meta: {
      apiVersion: job.apiVersion,
      cpu: ctx.cpu,
      creativeType: CreativeType.AD_TAG,
      device: profile.device,
      language: profile.language,
      ram: ctx.ram,
      scanDurationSeconds: Math.round((ctx.endedMs - ctx.startedMs) / 10) / 100,
      serverLocation: ctx.location,
      timestamp: BigInt(Math.floor(ctx.startedMs / 1000)),
      ua: profile.userAgent,
    },
    missingAssets: missing,
    mobileFriendly: mobileFriendly(painted, art.resized ?? null),
    network: {
      loadSize: { initialLoad: BigInt(sizes.initialLoad), hostInitiatedSubload: BigInt(sizes.hostInitiatedSubload), total: BigInt(sizes.total) },
      measurementPixels: responses.filter((r) => r.isPixel).length,
      responses,
    },
    ...(shot
      ? {
          screenshot: {
            highres: { id: shot.highres.id, bytes: BigInt(shot.highres.bytes), mimeType: "image/png", color: shot.highres.color },
            thumbnail: { id: shot.thumbnail.id, bytes: BigInt(shot.thumbnail.bytes), mimeType: "image/jpeg", color: shot.thumbnail.color },
          },
        }
      : {}),
    ssl,
    timeToVisualStartMs: BigInt(ttvs),
    usesDocumentWrite: art.usesDocumentWrite,
    visualArtifacts: hasVisualArtifacts(declared, painted),
    timedOut: art.timedOut,
    ...(art.consentRuns
      ? {
          privacy: privacyField({
            site, requests, storage: { cookies: art.cookies, localStorage: art.localStorage }, consentRuns: art.consentRuns,
            watchedMs: art.renderEndedAt - (art.navWallMs ?? art.renderEndedAt), vendors: art.vendors, allowedDomains: art.allowedDomains,
            creativeRequests, signalsSeen: art.consentSeen ?? [],
          }),
        }
      : {}),
    accessibility: buildAccessibility(art.accessibility, {
      renderStartMs: art.renderStartedAt ?? 0, animationMs, rendered,
      starved: measured.confidence === "low" ? measured.reasons.join("; ") : undefined,
    }),
    ...(art.heavyAd
      ? { heavyAd: { checked: art.heavyAd.checked, intervened: art.heavyAd.intervened, reason: art.heavyAd.reason, watchedMs: art.heavyAd.watchedMs, detail: art.heavyAd.detail } }
      : {}),
    measurement: {
      confidence: measured.confidence === "high" ? Measurement_Confidence.HIGH : Measurement_Confidence.LOW,
      reasons: measured.reasons,
      lowConfidenceFields: measured.fields,
    },
  } as Parameters<typeof create<typeof TagReportSchema>>[1]);
}
