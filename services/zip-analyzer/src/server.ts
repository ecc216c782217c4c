import { ScanKind, zipanalyzer } from "@cva/contracts";
import { createDispatcher, startScannerProcess, type ScannerProcess, type ScannerProcessBase } from "@cva/platform";
import { createZipAnalyzer, type RenderBundle } from "./analyzer.ts";
import { runJob } from "./job.ts";
import type { ZipLimits } from "./limits.ts";
import { renderViaDispatcher } from "./render-via-dispatcher.ts";
import { registerZipAnalyzerRoutes } from "./routes.ts";

export interface ZipAnalyzerProcessOptions extends ScannerProcessBase {
  slots: number;
  limits: ZipLimits;
  bundleOrigin: string;
  /** Replaces the dispatcher-backed render (tests). */
  render?: RenderBundle;
}

export type ZipAnalyzerProcess = ScannerProcess;

/**
 * Everything main.ts starts, as a function so integration tests can run it against their own NATS: the gRPC host
 * (ZipAnalyzerService + health + metrics) and the SCAN_KIND_ZIP queue worker, sharing one analyzer and one slot
 * count. Each job goes through job.ts to the analyzer (analyzer.ts); renders go to tag-scanner workers through the
 * dispatcher.
 */
export async function startZipAnalyzerProcess(opts: ZipAnalyzerProcessOptions): Promise<ZipAnalyzerProcess> {
  const { nc, logger } = opts;
  const dispatcher = opts.render ? undefined : await createDispatcher(nc, { logger, defaultLocation: opts.location });
  const render = opts.render ?? renderViaDispatcher(dispatcher!, { location: opts.location });
  const analyzer = createZipAnalyzer({ render, logger, limits: opts.limits, bundleOrigin: opts.bundleOrigin });
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
    run: (job, ctx) => runJob(analyzer, job, ctx),
    failureMessage: "the scan could not be completed",
    register: registerZipAnalyzerRoutes,
    onClose: async () => {
      await dispatcher?.close();
    },
  });
}
