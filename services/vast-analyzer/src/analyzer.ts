import { create } from "@bufbuild/protobuf";
import {
  CreativeType,
  MetaSchema,
  SslSchema,
  VastChainHopSchema,
  VastReportSchema,
  VastXmlSchema,
  type ScanJob,
  type VastReport,
} from "@cva/contracts";
import { machineCpu, machineRam, servedLocationOf, splitLocations, type Logger, type OutboundPolicy } from "@cva/platform";
import { resolveChain, type ChainResult } from "./chain.ts";
import { corsAllowsPlayer } from "./cors.ts";
import { VastInputError } from "./errors.ts";
import { PLAYER_ORIGIN, VAST_USER_AGENT, type FetchContext } from "./fetch-document.ts";
import { resolveLimits, type VastLimits } from "./limits.ts";
import type { ProbeFn } from "./media.ts";
import { reportCreatives } from "./creatives.ts";
import { fireImpressions } from "./pixels.ts";
import { insecureUrls } from "./ssl.ts";
import { isHttpUrl, resolveVastUrl } from "./urls.ts";

export interface VastAnalyzerDeps {
  policy: OutboundPolicy;
  probe: ProbeFn;
  logger?: Logger;
  limits?: Partial<VastLimits>;
  /** This worker's SERVER_LOCATION (one or several): meta.server_location is the job's own among them. */
  location: string;
  /** Test seam: maps every outbound URL (documents, pixels, media) before it is requested. Identity by default. */
  rewriteUrl?: (url: string) => string;
}

export interface VastAnalyzer {
  analyze(job: ScanJob, signal?: AbortSignal): Promise<VastReport>;
}

const DEFAULT_LANGUAGE = "en-US,en;q=0.9";

/**
 * Report `type`: the type of the first ad of the scanned document ("inline" or "wrapper"); when the document holds
 * no ad: "empty"; "vmap" for a VMAP playlist, "vast1" for VAST 1.0, "invalid" for malformed/refused/non-VAST XML,
 * "unavailable" when no document could be loaded (unreachable, time-out, HTTP error).
 */
function reportType(chain: ChainResult): string {
  return chain.firstStatus;
}

export function createVastAnalyzer(deps: VastAnalyzerDeps): VastAnalyzer {
  const limits = resolveLimits(deps.limits);
  const rewriteUrl = deps.rewriteUrl ?? ((u: string) => u);
  const cpu = machineCpu();
  const ram = machineRam();

  async function analyze(job: ScanJob, signal?: AbortSignal): Promise<VastReport> {
    const started = performance.now();
    const startedAt = Date.now();
    if (job.input.case !== "vast") throw new VastInputError("data: the job carries no VAST URL");
    const vastUrl = job.input.value.url;
    const language = job.targeting?.language?.trim() || DEFAULT_LANGUAGE;
    const log = deps.logger?.child({ job_id: job.jobId });
    const ctx: FetchContext = { policy: deps.policy, limits, language, signal, rewriteUrl };

    const chain = await resolveChain(vastUrl, ctx);
    const first = chain.steps[0];
    const errors = [...chain.errors];

    // Impressions: merged along the chain (wrappers first, as a player collects them) and fired only when the chain
    // reached an inline ad — a player that ends in no ad fires Error URLs, not impressions.
    const impressionUrls: URL[] = [];
    for (const step of chain.steps) {
      for (const raw of step.ad?.impressions ?? []) {
        const u = resolveVastUrl(raw, step.baseUrl);
        if (isHttpUrl(u)) impressionUrls.push(u);
        else errors.push(`impression URL ${JSON.stringify(raw.slice(0, 200))} is not an http(s) URL; not fired`);
      }
    }
    let impressionPixels: string[] = [];
    if (chain.inline) {
      const toFire = impressionUrls.slice(0, limits.maxImpressions);
      if (impressionUrls.length > toFire.length) {
        errors.push(`${impressionUrls.length} impression URLs; only the first ${limits.maxImpressions} were fired`);
      }
      const fired = await fireImpressions(toFire, ctx);
      impressionPixels = fired.map((p) => p.url);
      for (const p of fired) if (!p.ok) errors.push(`impression pixel ${p.url} failed: ${p.error ?? "no answer"}`);
    } else if (impressionUrls.length > 0) {
      errors.push("impression pixels not fired: the wrapper chain did not end in an inline ad");
    }

    // Creatives: the Linear and NonLinear creatives of the inline ad, in document order.
    const { creatives, screenshot, problems } = chain.inline?.ad
      ? await reportCreatives(chain.inline, chain.inline.ad, {
          probe: deps.probe, job, limits, rewriteUrl, ctx, logger: log,
        })
      : { creatives: [], screenshot: undefined, problems: [] };
    if (signal?.aborted) throw signal.reason;
    errors.push(...problems);

    // ad_system: the inline ad's (the server that delivered the creative), else the nearest wrapper's.
    let adSystem = chain.inline?.ad?.adSystem ?? "";
    for (let i = chain.steps.length - 1; adSystem === "" && i >= 0; i--) adSystem = chain.steps[i]?.ad?.adSystem ?? "";
    const adTitle = chain.inline?.ad?.adTitle ?? (chain.firstStatus === "vast1" ? (first?.ad?.adTitle ?? "") : "");

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
      wrapperChain: chain.steps.map((step) =>
        create(VastChainHopSchema, {
          url: step.url,
          httpCode: step.response?.status ?? 0,
          loadTimeMs: BigInt(Math.round(step.response?.timeMs ?? 0)),
          type: step.status,
          vastVersion: step.doc?.version ?? "",
          error: step.error ?? "",
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
