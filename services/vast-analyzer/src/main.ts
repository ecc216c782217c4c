import { vastanalyzer, ScanKind } from "@cva/contracts";
import {
  bindHostFromEnv, connectNats, createDispatcher, createLogger, createSideEffectGuard, envInt, exitOnSignals, loadCommonConfig, outboundPolicyFromEnv, serviceCredentialsFromEnv, startScannerProcess,
} from "@cva/platform";
import { createVastAnalyzer } from "./analyzer.ts";
import { analyzeToOutcome, type Evaluate } from "./job-outcome.ts";
import { DEFAULT_LIMITS } from "./limits.ts";
import { probeViaDispatcher } from "./probe-via-dispatcher.ts";
import { registerVastAnalyzerRoutes } from "./routes.ts";
import { createSchemaValidator } from "./xsd.ts";

// VAST analyzer process: serves cva.vastanalyzer.v1.VastAnalyzerService on VAST_ANALYZER_PORT and works
// SCAN_KIND_VAST jobs from the NATS queue; media files are probed by media-prober workers via SCAN_KIND_MEDIA jobs.
const logger = createLogger("vast-analyzer");
const { natsUrl, natsAuth, serverLocation } = loadCommonConfig();
const port = envInt("VAST_ANALYZER_PORT", 9105);
const metricsPort = envInt("METRICS_PORT", 9205);
const slotCount = Math.max(1, envInt("VAST_ANALYZER_SLOTS", 4));
const mediaProbeTimeoutMs = envInt("VAST_MEDIA_PROBE_TIMEOUT_MS", 60_000);
const limits = {
  maxXmlBytes: envInt("VAST_MAX_XML_BYTES", DEFAULT_LIMITS.maxXmlBytes),
  maxWrapperRedirects: envInt("VAST_MAX_WRAPPER_REDIRECTS", DEFAULT_LIMITS.maxWrapperRedirects),
  fetchTimeoutMs: envInt("VAST_FETCH_TIMEOUT_MS", DEFAULT_LIMITS.fetchTimeoutMs),
  connectTimeoutMs: envInt("VAST_CONNECT_TIMEOUT_MS", DEFAULT_LIMITS.connectTimeoutMs),
  pixelTimeoutMs: envInt("VAST_PIXEL_TIMEOUT_MS", DEFAULT_LIMITS.pixelTimeoutMs),
  probeConcurrency: envInt("VAST_PROBE_CONCURRENCY", DEFAULT_LIMITS.probeConcurrency),
  maxScanBytes: envInt("VAST_MAX_SCAN_BYTES", DEFAULT_LIMITS.maxScanBytes),
  mediaFileMaxBytes: envInt("VAST_MEDIA_FILE_MAX_BYTES", DEFAULT_LIMITS.mediaFileMaxBytes),
  reportReserveMs: envInt("VAST_REPORT_RESERVE_MS", DEFAULT_LIMITS.reportReserveMs),
};

// scan_results come from @cva/spec-sets when that package is present; without it reports carry none.
async function loadEvaluate(): Promise<Evaluate | undefined> {
  try {
    const mod = (await import("@cva/spec-sets")) as { evaluateVast?: Evaluate };
    return typeof mod.evaluateVast === "function" ? mod.evaluateVast : undefined;
  } catch {
    logger.warn("@cva/spec-sets not available: VAST reports carry no scan_results");
    return undefined;
  }
}
const evaluate = await loadEvaluate();

const policy = outboundPolicyFromEnv();
const credentials = serviceCredentialsFromEnv();
const nc = await connectNats(natsUrl, "vast-analyzer", { auth: natsAuth });
const dispatcher = await createDispatcher(nc, { logger, defaultLocation: serverLocation });
const analyzer = createVastAnalyzer({
  policy,
  probe: probeViaDispatcher(dispatcher, { location: serverLocation, timeoutMs: mediaProbeTimeoutMs, logger }),
  logger,
  limits,
  location: serverLocation,
  // The IAB XSDs, if the operator provides them (not shipped: no licence grant); see src/xsd.ts.
  schemas: createSchemaValidator(process.env.VAST_XSD_DIR || undefined),
  sideEffects: await createSideEffectGuard(nc),
});

const proc = await startScannerProcess({
  name: "vast-analyzer",
  label: "VAST analyzer",
  nc,
  logger,
  kind: ScanKind.VAST,
  location: serverLocation,
  slots: slotCount,
  port,
  metricsPort,
  host: bindHostFromEnv(),
  credentials,
  serviceName: vastanalyzer.VastAnalyzerService.typeName,
  run: (job, ctx) => analyzeToOutcome(analyzer, job, { ...ctx, evaluate }),
  failureMessage: "the scan could not be completed",
  register: registerVastAnalyzerRoutes,
  onClose: () => dispatcher.close(),
});
logger.info({ port: proc.port, metrics_port: proc.metricsPort, slots: slotCount, location: serverLocation, policy: policy.describe() }, "vast-analyzer ready");

exitOnSignals(logger, "vast-analyzer", async () => {
  await proc.close();
  await nc.drain();
});
