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
// Chrome's Heavy Ad Intervention in an ad frame (heavy-ad/): on by default; the second run is made only for creatives
// whose first run came within half of one of Chrome's limits, so a creative far below them renders once.
const heavyAd = envString("TAG_HEAVY_AD", "1") === "1";
// SIMID jobs (simid/) at a time, on the same browsers as the tag scans.
const simidSlots = Math.max(1, envInt("TAG_SIMID_SLOTS", 2));
// The consent states (privacy/): on unless TAG_CONSENT_STATES=0. A state is rendered only where it can differ from the
// full run (privacy/consent-plan.ts; TAG_CONSENT_DERIVE=0 renders all three always): a creative that looks for no
// consent signal costs no extra render (see the README, "Cost").
const consentStates = envString("TAG_CONSENT_STATES", "1") === "1";
const consentDerive = envString("TAG_CONSENT_DERIVE", "1") === "1";

await runScannerMain({
  name: "tag-scanner",
  portEnv: "TAG_SCANNER_PORT",
  defaultPort: 9103,
  defaultMetricsPort: 9203,
  describe: { pool, timeouts, policy: policy.describe(), consentStates, consentDerive, heavyAd },
  start: (base) => startTagScannerProcess({ ...base, policy, pool, timeouts, consentStates, consentDerive, heavyAd, simidSlots }),
});
