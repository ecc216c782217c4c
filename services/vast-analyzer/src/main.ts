import { envInt, envString, outboundPolicyFromEnv, runScannerMain } from "@cva/platform";
import { DEFAULT_LIMITS } from "./limits.ts";
import { startVastAnalyzerProcess } from "./server.ts";

// VAST analyzer process: serves cva.vastanalyzer.v1.VastAnalyzerService on VAST_ANALYZER_PORT and works
// SCAN_KIND_VAST jobs from the NATS queue; media files are probed by media-prober workers via SCAN_KIND_MEDIA jobs.
// Only its own configuration is read here; runScannerMain does what every scanner does.
const slots = Math.max(1, envInt("VAST_ANALYZER_SLOTS", 4));
const mediaProbeTimeoutMs = envInt("VAST_MEDIA_PROBE_TIMEOUT_MS", 60_000);
// SIMID creatives run by a tag scanner's SIMID player harness (SCAN_KIND_SIMID jobs), each bounded by this.
const simidTimeoutMs = envInt("VAST_SIMID_TIMEOUT_MS", 45_000);
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
// The IAB XSDs, if the operator provides them (not shipped: no licence grant); see src/xsd.ts.
const xsdDir = envString("VAST_XSD_DIR", "") || undefined;
// Tracker hosts checked over the network (resolve, connect, TLS handshake; never an HTTP request): on by default.
const trackerNetworkChecks = envString("VAST_CHECK_TRACKERS", "1") !== "0";
const policy = outboundPolicyFromEnv();

await runScannerMain({
  name: "vast-analyzer",
  portEnv: "VAST_ANALYZER_PORT",
  defaultPort: 9105,
  defaultMetricsPort: 9205,
  describe: { slots, limits, media_probe_timeout_ms: mediaProbeTimeoutMs, simid_timeout_ms: simidTimeoutMs, xsd_dir: xsdDir ?? null, tracker_network_checks: trackerNetworkChecks, policy: policy.describe() },
  start: (base) => startVastAnalyzerProcess({ ...base, policy, slots, limits, mediaProbeTimeoutMs, simidTimeoutMs, xsdDir, trackerNetworkChecks }),
});
