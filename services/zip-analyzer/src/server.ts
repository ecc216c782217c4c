import { ScanKind, zipanalyzer } from "@cva/contracts";
import { createDispatcher, startScannerProcess, type ScannerProcess, type ScannerProcessBase } from "@cva/platform";
import { evaluateZip } from "@cva/spec-sets";
import { createZipAnalyzer, type RenderBundle } from "./analyzer.ts";
import { analyzeToOutcome, type EvaluateZip } from "./job-outcome.ts";
import type { ZipLimits } from "./limits.ts";
import { renderViaDispatcher } from "./render-via-dispatcher.ts";
import { registerZipAnalyzerRoutes } from "./routes.ts";

export interface ZipAnalyzerProcessOptions extends ScannerProcessBase {
  slots: number;
  limits: ZipLimits;
  bundleOrigin: string;
  /** Replaces the dispatcher-backed render (tests). */
  render?: RenderBundle;
  /** scan_results of v3 zips; by default @cva/spec-sets evaluateZip. */
  evaluate?: EvaluateZip;
}

export type ZipAnalyzerProcess = ScannerProcess;

/**
 * Everything main.ts starts, as a function so integration tests can run it against their own NATS: the gRPC host
 * (ZipAnalyzerService + health + metrics) and the SCAN_KIND_ZIP queue worker, sharing one analyzer and one slot
 * count. Renders go to tag-scanner workers through the dispatcher.
 */
export async function startZipAnalyzerProcess(opts: ZipAnalyzerProcessOptions): Promise<ZipAnalyzerProcess> {
  const { nc, logger } = opts;
  const dispatcher = opts.render ? undefined : await createDispatcher(nc, { logger, defaultLocation: opts.location });
  const render = opts.render ?? renderViaDispatcher(dispatcher!, { location: opts.location });
  const analyzer = createZipAnalyzer({ render, logger, limits: opts.limits, bundleOrigin: opts.bundleOrigin });
  const evaluate = opts.evaluate ?? evaluateZip;
  return startScannerProcess({
    name: "zip-analyzer",
    nc,
    logger,
    kind: ScanKind.ZIP,
    location: opts.location,
    slots: opts.slots,
    port: opts.port,
    metricsPort: opts.metricsPort,
    host: opts.host,
    credentials: opts.credentials,
    serviceName: zipanalyzer.ZipAnalyzerService.typeName,
    run: (job, ctx) => analyzeToOutcome(analyzer, job, { ...ctx, evaluate }),
    failureMessage: "the scan could not be completed",
    register: registerZipAnalyzerRoutes,
    onClose: async () => {
      await dispatcher?.close();
    },
  });
}
