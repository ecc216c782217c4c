import { envInt, envString, runScannerMain } from "@cva/platform";
import { limitsFromEnv } from "./limits.ts";
import { startZipAnalyzerProcess } from "./server.ts";

// Zip-analyzer process: cva.zipanalyzer.v1.ZipAnalyzerService on ZIP_ANALYZER_PORT and a SCAN_KIND_ZIP worker
// (ZIP_ANALYZER_SLOTS jobs at a time) whose renders are tag jobs for the tag-scanner workers. Only its own
// configuration is read here; runScannerMain does what every scanner does.
const slots = Math.max(1, envInt("ZIP_ANALYZER_SLOTS", 4));
const limits = limitsFromEnv();
// Where the tag scanner serves bundles (services/tag-scanner/src/config.ts SYNTHETIC_ORIGIN).
const bundleOrigin = envString("BUNDLE_ORIGIN", "https://creative.cva.invalid");

await runScannerMain({
  name: "zip-analyzer",
  portEnv: "ZIP_ANALYZER_PORT",
  defaultPort: 9104,
  defaultMetricsPort: 9204,
  describe: { slots, limits, bundle_origin: bundleOrigin },
  start: (base) => startZipAnalyzerProcess({ ...base, slots, limits, bundleOrigin }),
});
