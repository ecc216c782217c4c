import { ScanKind, tagscanner } from "@cva/contracts";
import { createArtifactWriter, startScannerProcess, type ArtifactSink, type OutboundPolicy, type ScannerProcess, type ScannerProcessBase } from "@cva/platform";
import { createBrowserPool, type BrowserPoolOptions } from "./browser-pool.ts";
import type { ScanTimeouts } from "./config.ts";
import { registerTagScannerRoutes } from "./routes.ts";
import { createTagScanner } from "./scanner.ts";
import { runJob } from "./job.ts";
import { startSimidWorker } from "./simid/simid-worker.ts";

export interface TagScannerProcessOptions extends ScannerProcessBase {
  policy: OutboundPolicy;
  /** Where report images go; by default the NATS Object Store, write-only. */
  artifacts?: ArtifactSink;
  pool?: BrowserPoolOptions;
  timeouts?: Partial<ScanTimeouts>;
  /** Render the consent states for v3 jobs (TAG_CONSENT_STATES=1; main.ts defaults it to off). */
  consentStates?: boolean;
  /** SIMID jobs at a time (TAG_SIMID_SLOTS; default 2). */
  simidSlots?: number;
  /** Chrome's Heavy Ad Intervention run for creatives near its limits (TAG_HEAVY_AD). */
  heavyAd?: boolean;
}

export type TagScannerProcess = ScannerProcess;

/**
 * The service as a process minus environment parsing (main.ts does that): a SCAN_KIND_TAG queue worker and the
 * direct ScanTag RPC, sharing the warm browser pool and one set of slots (browsers x slots per browser). Each job goes
 * through job.ts to the scanner (scanner.ts).
 */
export async function startTagScannerProcess(opts: TagScannerProcessOptions): Promise<TagScannerProcess> {
  const pool = createBrowserPool({ ...opts.pool, logger: opts.logger });
  // Write-only: this process renders untrusted creatives and must not be able to read anyone's images.
  const artifacts = opts.artifacts ?? createArtifactWriter(opts.nc);
  const scanner = createTagScanner({ pool, policy: opts.policy, artifacts, logger: opts.logger, location: opts.location, timeouts: opts.timeouts, consentStates: opts.consentStates, heavyAd: opts.heavyAd });
  // In the background: the process is ready at once, and scans arriving later find their browser and pages waiting.
  void scanner.warmUp().catch(() => {});
  // SCAN_KIND_SIMID beside the tag jobs, on the same browsers (simid/): the VAST analyzer's SIMID creatives.
  const simid = await startSimidWorker({ nc: opts.nc, logger: opts.logger, location: opts.location, pool, policy: opts.policy, slots: opts.simidSlots });
  return startScannerProcess({
    name: "tag-scanner",
    nc: opts.nc,
    logger: opts.logger,
    kind: ScanKind.TAG,
    location: opts.location,
    slots: pool.capacity,
    port: opts.port,
    metricsPort: opts.metricsPort,
    host: opts.host,
    credentials: opts.credentials,
    serviceName: tagscanner.TagScannerService.typeName,
    run: (job, ctx) => runJob(scanner, job, ctx),
    failureMessage: "the tag could not be scanned",
    register: registerTagScannerRoutes,
    onClose: async () => {
      await simid.stop();
      await pool.close();
    },
  });
}
