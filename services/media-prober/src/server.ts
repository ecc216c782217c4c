import { mediaprober, ScanKind } from "@cva/contracts";
import { startServiceHost, startWorker, type ArtifactSink, type Logger, type NatsConnection, type OutboundPolicy } from "@cva/platform";
import { createMediaProber, type MediaProberLimits } from "./prober.ts";
import { registerMediaProberRoutes } from "./routes.ts";
import { createSlots, probeJob } from "./service.ts";

export interface MediaProberProcessOptions {
  nc: NatsConnection;
  logger: Logger;
  policy: OutboundPolicy;
  artifacts: ArtifactSink;
  port: number;
  metricsPort: number;
  location: string;
  slots: number;
  limits?: Partial<MediaProberLimits>;
  workDir?: string;
}

export interface MediaProberProcess {
  port: number;
  metricsPort: number;
  close(): Promise<void>;
}

/**
 * The service as a process minus environment parsing (main.ts does that): a SCAN_KIND_MEDIA queue worker and the
 * direct ProbeMedia RPC, sharing one set of slots — each probe runs ffmpeg, so slots track cores.
 */
export async function startMediaProberProcess(opts: MediaProberProcessOptions): Promise<MediaProberProcess> {
  const prober = createMediaProber({
    policy: opts.policy, artifacts: opts.artifacts, logger: opts.logger, limits: opts.limits, workDir: opts.workDir,
  });
  const slots = createSlots(opts.slots);
  const worker = await startWorker(opts.nc, {
    kind: ScanKind.MEDIA,
    location: opts.location,
    slots: opts.slots,
    logger: opts.logger,
    async handle(job, ctx) {
      slots.acquire();
      try {
        return await probeJob(prober, job, ctx.signal, ctx.logger);
      } finally {
        slots.release();
      }
    },
  });
  const host = await startServiceHost({
    name: "media-prober",
    port: opts.port,
    metricsPort: opts.metricsPort,
    logger: opts.logger,
    serviceNames: [mediaprober.MediaProberService.typeName],
    register: (router) => registerMediaProberRoutes(router, prober, slots, { logger: opts.logger }),
    ready: async () => !opts.nc.isClosed(),
  });
  return {
    port: host.port,
    metricsPort: host.metricsPort,
    async close() {
      await worker.stop();
      await host.close();
    },
  };
}
