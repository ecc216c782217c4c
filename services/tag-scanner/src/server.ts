import { ErrorType, ScanErrorSchema, ScanKind, tagscanner } from "@cva/contracts";
import { create } from "@bufbuild/protobuf";
import { startServiceHost, startWorker, type ArtifactSink, type Logger, type NatsConnection, type OutboundPolicy } from "@cva/platform";
import { createBrowserPool, type BrowserPoolOptions } from "./browser-pool.ts";
import type { ScanTimeouts } from "./config.ts";
import { registerTagScannerRoutes } from "./routes.ts";
import { createTagScanner } from "./scanner.ts";
import { createSlots, scanJob } from "./service.ts";

export interface TagScannerProcessOptions {
  nc: NatsConnection;
  logger: Logger;
  policy: OutboundPolicy;
  artifacts: ArtifactSink;
  port: number;
  metricsPort: number;
  location: string;
  pool?: BrowserPoolOptions;
  timeouts?: Partial<ScanTimeouts>;
}

export interface TagScannerProcess {
  port: number;
  metricsPort: number;
  close(): Promise<void>;
}

/**
 * The service as a process minus environment parsing (main.ts does that): a SCAN_KIND_TAG queue worker and the
 * direct ScanTag RPC, sharing the warm browser pool and one set of slots (browsers x slots per browser).
 */
export async function startTagScannerProcess(opts: TagScannerProcessOptions): Promise<TagScannerProcess> {
  const pool = createBrowserPool({ ...opts.pool, logger: opts.logger });
  const scanner = createTagScanner({ pool, policy: opts.policy, artifacts: opts.artifacts, logger: opts.logger, location: opts.location, timeouts: opts.timeouts });
  const slots = createSlots(pool.capacity);
  const worker = await startWorker(opts.nc, {
    kind: ScanKind.TAG,
    location: opts.location,
    slots: pool.capacity,
    logger: opts.logger,
    async handle(job, ctx) {
      slots.acquire();
      try {
        return await scanJob(scanner, job, ctx.signal);
      } catch (err) {
        ctx.logger.error({ job_id: job.jobId, err: String(err) }, "tag job failed");
        return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PROCESSING, message: "the tag could not be scanned" }) };
      } finally {
        slots.release();
      }
    },
  });
  const host = await startServiceHost({
    name: "tag-scanner",
    port: opts.port,
    metricsPort: opts.metricsPort,
    logger: opts.logger,
    serviceNames: [tagscanner.TagScannerService.typeName],
    register: (router) => registerTagScannerRoutes(router, scanner, slots, { logger: opts.logger }),
    ready: async () => !opts.nc.isClosed(),
  });
  return {
    port: host.port,
    metricsPort: host.metricsPort,
    async close() {
      await worker.stop();
      await host.close();
      await pool.close();
    },
  };
}
