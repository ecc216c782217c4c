import {
  bindHostFromEnv, connectNats, createArtifactWriter, createLogger, envInt, envString, exitOnSignals, loadCommonConfig, outboundPolicyFromEnv, serviceCredentialsFromEnv,
} from "@cva/platform";
import { DEFAULT_BROWSERS, DEFAULT_SLOTS } from "./browser-pool.ts";
import { DEFAULT_TIMEOUTS } from "./config.ts";
import { startTagScannerProcess } from "./server.ts";

// Tag scanner process: serves cva.tagscanner.v1.TagScannerService on TAG_SCANNER_PORT and works SCAN_KIND_TAG jobs
// of SERVER_LOCATION from the NATS queue with TAG_SCANNER_BROWSERS warm Chromiums x TAG_SCANNER_SLOTS scans each.
const logger = createLogger("tag-scanner");
const { natsUrl, natsAuth, serverLocation } = loadCommonConfig();
const port = envInt("TAG_SCANNER_PORT", 9103);
const metricsPort = envInt("METRICS_PORT", 9203);
const pool = {
  browsers: Math.max(1, envInt("TAG_SCANNER_BROWSERS", DEFAULT_BROWSERS)),
  slots: Math.max(1, envInt("TAG_SCANNER_SLOTS", DEFAULT_SLOTS)),
  executablePath: envString("CHROMIUM_PATH", "/usr/bin/chromium"),
  maxHeapMb: envInt("TAG_SCANNER_MAX_HEAP_MB", 512),
};
const timeouts = {
  renderMs: envInt("TAG_RENDER_TIMEOUT_MS", DEFAULT_TIMEOUTS.renderMs),
  holdMs: envInt("TAG_ANIMATION_HOLD_MS", DEFAULT_TIMEOUTS.holdMs),
  stepMs: envInt("TAG_STEP_TIMEOUT_MS", DEFAULT_TIMEOUTS.stepMs),
  landingMs: envInt("TAG_LANDING_TIMEOUT_MS", DEFAULT_TIMEOUTS.landingMs),
};

const policy = outboundPolicyFromEnv();
const credentials = serviceCredentialsFromEnv();
const nc = await connectNats(natsUrl, "tag-scanner", { auth: natsAuth });
// Write-only: this process renders untrusted creatives and must not be able to read anyone's images.
const artifacts = createArtifactWriter(nc);
const proc = await startTagScannerProcess({
  nc, logger, policy, artifacts, port, metricsPort, host: bindHostFromEnv(), credentials, location: serverLocation, pool, timeouts,
});
logger.info({ port: proc.port, metrics_port: proc.metricsPort, pool, timeouts, location: serverLocation, policy: policy.describe() }, "tag-scanner ready");

exitOnSignals(logger, "tag-scanner", async () => {
  await proc.close();
  await nc.drain();
});
