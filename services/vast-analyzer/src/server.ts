import { ScanKind, vastanalyzer } from "@cva/contracts";
import {
  createDispatcher, createSideEffectGuard, startScannerProcess, type OutboundPolicy, type ScannerProcess, type ScannerProcessBase, type SideEffectGuard,
} from "@cva/platform";
import { createVastAnalyzer } from "./analyzer.ts";
import { runJob } from "./job.ts";
import type { VastLimits } from "./limits.ts";
import type { ProbeFn } from "./media.ts";
import { probeViaDispatcher } from "./probe-via-dispatcher.ts";
import { simidViaDispatcher } from "./simid-via-dispatcher.ts";
import type { SimidFn } from "./simid.ts";
import { registerVastAnalyzerRoutes } from "./routes.ts";
import { createSchemaValidator } from "./xsd.ts";

export interface VastAnalyzerProcessOptions extends ScannerProcessBase {
  policy: OutboundPolicy;
  slots: number;
  limits?: Partial<VastLimits>;
  /** Bound of one media probe job when the VAST job carries no deadline (it is capped by the deadline otherwise). */
  mediaProbeTimeoutMs: number;
  /** Bound of one SIMID job (VAST_SIMID_TIMEOUT_MS, 45 000; capped by the job's deadline). */
  simidTimeoutMs?: number;
  /** Replaces the tag-scanner SIMID jobs (tests). */
  simid?: SimidFn;
  /** Folder of the IAB VAST XSDs (VAST_XSD_DIR; not shipped: no licence grant); without it nothing is validated. */
  xsdDir?: string;
  /** Replaces the media-prober jobs (tests). */
  probe?: ProbeFn;
  /** Replaces the KV guard that fires a job's impression pixels once (tests). */
  sideEffects?: SideEffectGuard;
  /**
   * Check each tracking, click, error and verification URL's host over the network (DNS, TCP, TLS; no HTTP request):
   * VAST_CHECK_TRACKERS, on unless set to 0.
   */
  trackerNetworkChecks?: boolean;
  /** Test seam: maps every outbound URL before it is requested. */
  rewriteUrl?: (url: string) => string;
}

export type VastAnalyzerProcess = ScannerProcess;

/**
 * The service as a process minus environment parsing (main.ts does that): the SCAN_KIND_VAST queue worker and the
 * direct AnalyzeVast RPC, sharing one analyzer and one set of slots. Each job goes through job.ts to the analyzer
 * (analyzer.ts); media files become SCAN_KIND_MEDIA jobs for media-prober workers through the dispatcher.
 */
export async function startVastAnalyzerProcess(opts: VastAnalyzerProcessOptions): Promise<VastAnalyzerProcess> {
  const { nc, logger } = opts;
  const dispatcher = opts.probe ? undefined : await createDispatcher(nc, { logger, defaultLocation: opts.location });
  const analyzer = createVastAnalyzer({
    policy: opts.policy,
    probe: opts.probe ?? probeViaDispatcher(dispatcher!, { location: opts.location, timeoutMs: opts.mediaProbeTimeoutMs, logger }),
    logger,
    limits: opts.limits,
    location: opts.location,
    rewriteUrl: opts.rewriteUrl,
    trackerChecks: { network: opts.trackerNetworkChecks ?? false },
    // SIMID creatives: SCAN_KIND_SIMID jobs for the tag scanner's SIMID player harness, as media files are media jobs.
    simid: opts.simid ?? (dispatcher ? simidViaDispatcher(dispatcher, { location: opts.location, timeoutMs: opts.simidTimeoutMs ?? 45_000, logger }) : undefined),
    schemas: createSchemaValidator(opts.xsdDir),
    // A job delivered again while its first delivery still runs must not fire the impression pixels twice.
    sideEffects: opts.sideEffects ?? (await createSideEffectGuard(nc)),
  });
  return startScannerProcess({
    name: "vast-analyzer",
    label: "VAST analyzer",
    nc,
    logger,
    kind: ScanKind.VAST,
    location: opts.location,
    slots: opts.slots,
    port: opts.port,
    metricsPort: opts.metricsPort,
    host: opts.host,
    credentials: opts.credentials,
    serviceName: vastanalyzer.VastAnalyzerService.typeName,
    run: (job, ctx) => runJob(analyzer, job, ctx),
    failureMessage: "the scan could not be completed",
    register: registerVastAnalyzerRoutes,
    onClose: async () => {
      await dispatcher?.close();
    },
  });
}
