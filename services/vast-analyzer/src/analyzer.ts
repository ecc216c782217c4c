import { create } from "@bufbuild/protobuf";
import {
  CreativeType,
  MetaSchema,
  SslSchema,
  VastAdSchema,
  VastChainHopSchema,
  VastSchemaCheckSchema,
  type Screenshot,
  type VastAd,
  type VastCreative,
  VastReportSchema,
  VastXmlSchema,
  type ScanJob,
  type VastReport,
} from "@cva/contracts";
import { machineCpu, machineRam, servedLocationOf, splitLocations, type Logger, type OutboundPolicy, type SideEffectGuard } from "@cva/platform";
import { resolveChain, type ChainResult } from "./chain.ts";
import { corsAllowsPlayer } from "./cors.ts";
import { VastInputError } from "./errors.ts";
import { PLAYER_ORIGIN, VAST_USER_AGENT, type FetchContext } from "./fetch-document.ts";
import { resolveLimits, type VastLimits } from "./limits.ts";
import { createMediaSession, type ProbeFn } from "./media.ts";
import { createScanBudget, scanDeadline } from "./scan-budget.ts";
import { readAdDetails } from "./ad-details.ts";
import { reportCreatives } from "./creatives.ts";
import { findUnexpandedMacros } from "./unexpanded-macros.ts";
import { resolvePod } from "./pod.ts";
import { attr, decodeXmlBytes } from "./xml-tree.ts";
import { createSchemaValidator, type SchemaValidator } from "./xsd.ts";
import { fireImpressions } from "./pixels.ts";
import { insecureUrls } from "./ssl.ts";
import { lintChain } from "./lint-chain.ts";
import { checkTrackers, DEFAULT_TRACKER_CHECKS, type TrackerCheckOptions } from "./trackers.ts";
import { isHttpUrl, resolveVastUrl } from "./urls.ts";
import { checkVerificationScripts } from "./verification-scripts.ts";
import { runSimidFiles, type SimidFn } from "./simid.ts";

export interface VastAnalyzerDeps {
  policy: OutboundPolicy;
  probe: ProbeFn;
  logger?: Logger;
  limits?: Partial<VastLimits>;
  /** This worker's SERVER_LOCATION (one or several): meta.server_location is the job's own among them. */
  location: string;
  /** Test seam: maps every outbound URL (documents, pixels, media) before it is requested. Identity by default. */
  rewriteUrl?: (url: string) => string;
  /** XSD validation (xsd.ts); by default none configured: every document "not validated" with why. */
  schemas?: SchemaValidator;
  /**
   * Impression pixels go out once per job id even when the job is delivered again while its first delivery still
   * runs (server.ts: the KV guard of @cva/platform). Without it every analysis fires (one-off analyses, tests).
   */
  sideEffects?: SideEffectGuard;
  /**
   * Tracker URL checks (trackers.ts). Their network part (DNS, TCP, TLS handshake, no HTTP request) is off unless
   * `network: true`: a process enables it; library callers and tests that must not touch the internet leave it off.
   */
  trackerChecks?: Partial<TrackerCheckOptions>;
  /**
   * Runs a SIMID creative behind a SIMID 1.1 player harness (simid.ts; in production a tag-scanner job). Without it
   * every SIMID file is listed in `simid` as not run, with why.
   */
  simid?: SimidFn;
}

export interface VastAnalyzer {
  analyze(job: ScanJob, signal?: AbortSignal): Promise<VastReport>;
}

const DEFAULT_LANGUAGE = "en-US,en;q=0.9";

/**
 * Report `type`: the type of the first ad of the scanned document ("inline" or "wrapper"); when the document holds
 * no ad: "empty"; "vmap" for a VMAP playlist, "invalid" for malformed/refused/non-VAST XML,
 * "unavailable" when no document could be loaded (unreachable, time-out, HTTP error).
 */
function reportType(chain: ChainResult): string {
  return chain.firstStatus;
}

export function createVastAnalyzer(deps: VastAnalyzerDeps): VastAnalyzer {
  const limits = resolveLimits(deps.limits);
  const rewriteUrl = deps.rewriteUrl ?? ((u: string) => u);
  const schemas = deps.schemas ?? createSchemaValidator(undefined);
  const trackerOptions: TrackerCheckOptions = { ...DEFAULT_TRACKER_CHECKS, ...deps.trackerChecks };
  const cpu = machineCpu();
  const ram = machineRam();

  async function analyze(job: ScanJob, signal?: AbortSignal): Promise<VastReport> {
    const started = performance.now();
    const startedAt = Date.now();
    if (job.input.case !== "vast") throw new VastInputError("data: the job carries no VAST URL");
    const vastUrl = job.input.value.url;
    const language = job.targeting?.language?.trim() || DEFAULT_LANGUAGE;
    const log = deps.logger?.child({ job_id: job.jobId });
    // One deadline and one byte budget for every phase of this scan (scan-budget.ts).
    const budget = createScanBudget({
      deadlineMs: scanDeadline(job, { reserveMs: limits.reportReserveMs, fallbackMs: limits.scanTimeoutMs }),
      totalBytes: limits.maxScanBytes,
    });
    const ctx: FetchContext = { policy: deps.policy, limits, language, signal, rewriteUrl, budget };
    const media = createMediaSession({ probe: deps.probe, job, limits, budget, rewriteUrl, logger: log });

    const chain = await resolveChain(vastUrl, ctx);
    const first = chain.steps[0];
    const errors = [...chain.errors];
    // Every <Ad> of the scanned document, each resolved to what it plays: a pod plays them all (by sequence), a buffet
    // offers them all; a wrapper of the pod is followed through its own chain (pod.ts).
    const ads = await resolvePod(chain, ctx, limits.maxAds);
    const playing = ads.filter((a) => a.error === "");
    // Tracker URLs are checked beside the impressions and media probes (their connections send no request).
    const trackersDone = checkTrackers(chain.steps, vastUrl, { policy: deps.policy, budget, rewriteUrl, options: trackerOptions, signal });
    trackersDone.catch(() => {}); // awaited below; an abort must not surface as an unhandled rejection meanwhile

    // Impressions: each analysed ad's, merged along its chain (wrappers first, as a player collects them), and fired
    // only for ads that reached an inline ad — a player that ends in no ad fires Error URLs, not impressions.
    const impressionUrls: URL[] = [];
    for (const { raw, baseUrl } of playing.flatMap((a) => a.impressions)) {
      const u = resolveVastUrl(raw, baseUrl);
      if (isHttpUrl(u)) impressionUrls.push(u);
      else errors.push(`impression URL ${JSON.stringify(raw.slice(0, 200))} is not an http(s) URL; not fired`);
    }
    let impressionPixels: string[] = [];
    if (playing.length > 0) {
      const toFire = impressionUrls.slice(0, limits.maxImpressions);
      if (impressionUrls.length > toFire.length) {
        errors.push(`${impressionUrls.length} impression URLs; only the first ${limits.maxImpressions} were fired`);
      }
      // Claimed only when there is something to fire. A later delivery of the same job reports the same list (the
      // spec's "impression pixel URLs that were fired": they were, once, by the delivery that claimed them).
      if (toFire.length > 0 && deps.sideEffects && !(await deps.sideEffects.claim(job.jobId, "impressions", { signal }))) {
        log?.info({ impressions: toFire.length }, "impression pixels already fired by an earlier delivery of this job; not fired again");
        impressionPixels = toFire.map((u) => u.href);
      } else {
        // Before firing, so that every delivery that may have fired says so (npm run chaos counts them per job).
        if (toFire.length > 0) log?.info({ impression_pixels: toFire.map((u) => u.href) }, "impression pixels firing");
        const fired = await fireImpressions(toFire, ctx);
        impressionPixels = fired.filter((p) => p.fired !== false).map((p) => p.url);
        for (const p of fired) if (!p.ok) errors.push(`impression pixel ${p.url} ${p.fired === false ? "" : "failed: "}${p.error ?? "no answer"}`);
      }
    } else if (chain.steps.some((s) => (s.ad?.impressions.length ?? 0) > 0)) {
      errors.push("impression pixels not fired: the wrapper chain did not end in an inline ad");
    }

    // Creatives: the Linear and NonLinear creatives of every inline ad, in play order, then document order; each
    // says its ad (ad_index). The screenshot is the first ad's.
    const creatives: VastCreative[] = [];
    const adReports: VastAd[] = [];
    let screenshot: Screenshot | undefined;
    const details = ads.map((a) => readAdDetails(a.node, a.info, a.step.doc!));
    // SIMID creatives run behind a tag scanner's player harness beside the media probes (an ad whose chain failed
    // plays nothing: its files are not run).
    const simidDone = runSimidFiles(details.map((d, i) => (ads[i]!.error === "" ? d.simidFiles : [])), ads.map((a) => a.step.baseUrl), { simid: deps.simid, job, budget });
    simidDone.catch(() => {}); // awaited below; an abort must not surface as an unhandled rejection meanwhile
    for (const [adIndex, a] of ads.entries()) {
      const creativeIndexes: number[] = [];
      if (a.error === "") {
        const r = await reportCreatives(a.step, a.info, { media, limits, ctx, adIndex, firstCreativeIndex: creatives.length });
        for (const c of r.creatives) creativeIndexes.push(creatives.push(c) - 1);
        screenshot ??= r.screenshot;
        errors.push(...r.problems);
      }
      const d = details[adIndex]!;
      // Tracking is merged along the ad's chain: the player fires its wrappers' trackers too.
      const tracking = [...new Set([...a.wrapperEvents, ...d.trackingEvents])];
      adReports.push(create(VastAdSchema, {
        id: (attr(a.slot, "id") ?? "").trim(), sequence: Number.parseInt(attr(a.slot, "sequence") ?? "", 10) || 0, type: a.info.type === "unknown" ? "invalid" : a.info.type, adSystem: a.info.adSystem, adTitle: a.info.adTitle,
        creativeIndexes, universalAdIds: d.universalAdIds, impressions: a.error === "" ? a.impressions.length : a.info.impressions.length, errorUrls: d.errorUrls,
        trackingEvents: tracking.filter((e) => e !== ""), verifications: d.verifications, interactiveFiles: d.interactiveFiles,
        mezzanineUrls: d.mezzanineUrls, companions: d.companions, vpaid: d.vpaid, adServingId: d.adServingId, error: a.error,
      }));
    }
    // Open Measurement verification scripts: fetched as an OM SDK loads them (not trackers), judged per verification.
    await checkVerificationScripts(adReports.map((r) => r.verifications), ads.map((a) => a.step.baseUrl), ctx);
    const simid = await simidDone;
    if (signal?.aborted) throw signal.reason;

    // Each document of the chain against the IAB XSD of its version (line-numbered findings), when the operator gave
    // the schemas: a default install reports no check it cannot make (the linter below needs none).
    const schemaChecks = chain.steps.flatMap((step, hop) => {
      if (!schemas.configured || !step.doc || !step.response) return [];
      const r = schemas.validate(decodeXmlBytes(step.response.body), step.doc.version);
      return [create(VastSchemaCheckSchema, { hop, schema: r.schema, findings: r.findings, error: r.error })];
    });
    const unexpandedMacros = findUnexpandedMacros(chain.steps.flatMap((s) => (s.doc ? [s.doc] : [])));
    const lint = lintChain(chain.steps, log);
    const trackers = await trackersDone;
    errors.push(...trackers.errors);

    // ad_system: the inline ad's (the server that delivered the creative), else the nearest wrapper's.
    let adSystem = chain.inline?.ad?.adSystem ?? "";
    for (let i = chain.steps.length - 1; adSystem === "" && i >= 0; i--) adSystem = chain.steps[i]?.ad?.adSystem ?? "";
    const adTitle = chain.inline?.ad?.adTitle ?? "";

    const insecure = insecureUrls(chain.steps);
    const res = first?.response;
    const finishedSeconds = (performance.now() - started) / 1000;
    const report = create(VastReportSchema, {
      adSystem,
      adTitle,
      cors: res ? corsAllowsPlayer(res.headers, PLAYER_ORIGIN) : false,
      creatives,
      jobId: job.jobId,
      meta: create(MetaSchema, {
        apiVersion: job.apiVersion || "v3",
        cpu,
        creativeType: CreativeType.VAST,
        device: "Desktop",
        language,
        ram,
        scanDurationSeconds: Math.round(finishedSeconds * 1000) / 1000,
        serverLocation: servedLocationOf(job.targeting?.country, splitLocations(deps.location)),
        timestamp: BigInt(Math.floor(startedAt / 1000)),
        ua: VAST_USER_AGENT,
      }),
      impressionPixels,
      screenshot,
      ssl: create(SslSchema, { compliant: insecure.length === 0, insecureUrls: insecure }),
      type: reportType(chain),
      vastUrl,
      vastVersion: first?.doc?.version ?? "",
      wrapperRedirects: chain.wrapperRedirects,
      xml: create(VastXmlSchema, {
        contentType: res?.headers["content-type"] ?? "",
        data: res ? new Uint8Array(res.body) : new Uint8Array(),
        fileSize: BigInt(res?.body.length ?? 0),
        httpCode: res?.status ?? 0,
        loadTimeMs: BigInt(Math.round(res?.timeMs ?? 0)),
      }),
      errors,
      ads: adReports,
      schemaChecks,
      unexpandedMacros,
      lint: lint.findings,
      trackers: trackers.trackers,
      simid,
      wrapperChain: chain.steps.map((step, hop) =>
        create(VastChainHopSchema, {
          url: step.url,
          httpCode: step.response?.status ?? 0,
          loadTimeMs: BigInt(Math.round(step.response?.timeMs ?? 0)),
          type: step.status,
          vastVersion: step.doc?.version ?? "",
          error: step.error ?? "",
          lintRules: lint.rulesPerHop[hop] ?? 0,
        }),
      ),
      // No answer to the VAST request: there were no headers to judge CORS by and no load to time.
      notMeasured: res ? [] : ["cors", "xml.load_time"],
    });
    log?.info(
      { type: report.type, wrapper_redirects: report.wrapperRedirects, errors: errors.length, creatives: creatives.length },
      "vast analysed",
    );
    return report;
  }

  return { analyze };
}
