import { ScanKind, zipanalyzer } from "@cva/contracts";
import { createDispatcher, startServiceHost, startWorker, type Logger, type NatsConnection } from "@cva/platform";
import { createZipAnalyzer, type RenderBundle } from "./analyzer.ts";
import { analyzeToOutcome } from "./job-outcome.ts";
import type { ZipLimits } from "./limits.ts";
import { renderViaDispatcher } from "./render-via-dispatcher.ts";
import { registerZipAnalyzerRoutes } from "./routes.ts";
import { createSlots } from "./service.ts";

export interface ZipAnalyzerProcessOptions {
  nc: NatsConnection;
  logger: Logger;
  port: number;
  metricsPort: number;
  location: string;
  slots: number;
  limits: ZipLimits;
  bundleOrigin: string;
  /** Replaces the dispatcher-backed render (tests). */
  render?: RenderBundle;
}

export interface ZipAnalyzerProcess {
  port: number;
  metricsPort: number;
  close(): Promise<void>;
}

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
  const slots = createSlots(opts.slots);

  const host = await startServiceHost({
    name: "zip-analyzer",
    port: opts.port,
    metricsPort: opts.metricsPort,
    logger,
    serviceNames: [zipanalyzer.ZipAnalyzerService.typeName],
    register: (router) => registerZipAnalyzerRoutes(router, analyzer, slots, logger),
    ready: async () => !nc.isClosed(),
  });
  const worker = await startWorker(nc, {
    kind: ScanKind.ZIP,
    location: opts.location,
    slots: opts.slots,
    logger,
    async handle(job, ctx) {
      slots.acquire();
      try {
        return await analyzeToOutcome(analyzer, job, { signal: ctx.signal, logger: ctx.logger });
      } finally {
        slots.release();
      }
    },
  });
  return {
    port: host.port,
    metricsPort: host.metricsPort,
    async close() {
      await worker.stop();
      await host.close();
      await dispatcher?.close();
    },
  };
}
