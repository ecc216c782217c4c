import { envInt, envString, outboundPolicyFromEnv, runScannerMain } from "@cva/platform";
import { DEFAULT_BROWSERS, DEFAULT_SLOTS } from "./browser-pool.ts";
import { DEFAULT_TIMEOUTS } from "./config.ts";
import { startTagScannerProcess } from "./server.ts";

// Tag scanner process: serves cva.tagscanner.v1.TagScannerService on TAG_SCANNER_PORT and works SCAN_KIND_TAG jobs
// of SERVER_LOCATION from the NATS queue with TAG_SCANNER_BROWSERS warm Chromiums x TAG_SCANNER_SLOTS scans each.
// Only its own configuration is read here; runScannerMain does what every scanner does.
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
// The consent states' runs (privacy/): off unless TAG_CONSENT_STATES=1. They add three renderer starts to the critical
// path of every v3 scan (+6.9 s p50 on a static tag at load 15, see the README) until their contexts are prepared
// ahead like the main run's: a deployment that wants `privacy` in every report turns them on knowingly.
const consentStates = envString("TAG_CONSENT_STATES", "0") === "1";
// SIMID jobs (simid/) at a time, on the same browsers as the tag scans.
const simidSlots = Math.max(1, envInt("TAG_SIMID_SLOTS", 2));
// Chrome's Heavy Ad Intervention in an ad frame (heavy-ad/): on by default; the second run is made only for creatives
// whose first run came within half of one of Chrome's limits, so a creative far below them renders once.
const heavyAd = envString("TAG_HEAVY_AD", "1") === "1";

await runScannerMain({
  name: "tag-scanner",
  portEnv: "TAG_SCANNER_PORT",
  defaultPort: 9103,
  defaultMetricsPort: 9203,
  describe: { pool, timeouts, policy: policy.describe(), consentStates, heavyAd, simidSlots },
  start: (base) => startTagScannerProcess({ ...base, policy, pool, timeouts, consentStates, heavyAd, simidSlots }),
});
