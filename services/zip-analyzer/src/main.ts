import { bindHostFromEnv, connectNats, createLogger, envInt, envString, exitOnSignals, loadCommonConfig, serviceCredentialsFromEnv } from "@cva/platform";
import { limitsFromEnv } from "./limits.ts";
import { startZipAnalyzerProcess } from "./server.ts";

// Zip-analyzer process: cva.zipanalyzer.v1.ZipAnalyzerService on ZIP_ANALYZER_PORT and a SCAN_KIND_ZIP worker
// (ZIP_ANALYZER_SLOTS jobs at a time) whose renders are tag jobs for the tag-scanner workers.
const logger = createLogger("zip-analyzer");
const { natsUrl, natsAuth, serverLocation } = loadCommonConfig();
const credentials = serviceCredentialsFromEnv();

const nc = await connectNats(natsUrl, "zip-analyzer", { auth: natsAuth });
const proc = await startZipAnalyzerProcess({
  nc,
  logger,
  port: envInt("ZIP_ANALYZER_PORT", 9104),
  metricsPort: envInt("METRICS_PORT", 9204),
  host: bindHostFromEnv(),
  credentials,
  location: serverLocation,
  slots: Math.max(1, envInt("ZIP_ANALYZER_SLOTS", 4)),
  limits: limitsFromEnv(),
  // Where the tag scanner serves bundles (services/tag-scanner/src/config.ts SYNTHETIC_ORIGIN).
  bundleOrigin: envString("BUNDLE_ORIGIN", "https://creative.cva.invalid"),
});

exitOnSignals(logger, "zip-analyzer", async () => {
  await proc.close();
  await nc.drain();
});
