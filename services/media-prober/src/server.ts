import { mediaprober, ScanKind } from "@cva/contracts";
import { createArtifactWriter, startScannerProcess, type ArtifactSink, type OutboundPolicy, type ScannerProcess, type ScannerProcessBase } from "@cva/platform";
import { fileWorkersFor, startFileWorkers, type FileSettings } from "./file-workers.ts";
import { createMediaProber, type MediaProberLimits } from "./prober.ts";
import { registerMediaProberRoutes } from "./routes.ts";
import { PRLIMIT, prlimitAvailable } from "./exec.ts";
import { runJob } from "./job.ts";

export interface MediaProberProcessOptions extends ScannerProcessBase {
  policy: OutboundPolicy;
  /** Where posters, film strips and waveforms go; by default the NATS Object Store, write-only. */
  artifacts?: ArtifactSink;
  slots: number;
  limits?: Partial<MediaProberLimits>;
  workDir?: string;
  /** Raw video/audio file jobs (file-workers.ts). */
  files?: Partial<FileSettings>;
}

export type MediaProberProcess = ScannerProcess;

/**
 * The service as a process minus environment parsing (main.ts does that): a SCAN_KIND_MEDIA queue worker and the
 * direct ProbeMedia RPC, sharing one set of slots — each probe runs ffmpeg, so slots track cores — and the raw video
 * and audio file workers (file-workers.ts). Each VAST media job goes through job.ts to the prober (prober.ts).
 */
export async function startMediaProberProcess(opts: MediaProberProcessOptions): Promise<MediaProberProcess> {
  // ffmpeg never runs without its OS limits: a host without util-linux's prlimit is a deployment error.
  if (!prlimitAvailable()) throw new Error(`prlimit (util-linux) is missing at ${PRLIMIT}: ffmpeg cannot be run under its resource limits`);
  // Write-only: media files are untrusted input; this process must not be able to read anyone's images.
  const artifacts = opts.artifacts ?? createArtifactWriter(opts.nc);
  const prober = createMediaProber({ policy: opts.policy, artifacts, logger: opts.logger, limits: opts.limits, workDir: opts.workDir });
  const proc = await startScannerProcess({
    name: "media-prober",
    nc: opts.nc,
    logger: opts.logger,
    kind: ScanKind.MEDIA,
    location: opts.location,
    slots: opts.slots,
    port: opts.port,
    metricsPort: opts.metricsPort,
    host: opts.host,
    credentials: opts.credentials,
    serviceName: mediaprober.MediaProberService.typeName,
    run: (job, ctx) => runJob(prober, job, ctx),
    failureMessage: "the media file could not be probed",
    // A failed queue job's message reaches VAST reports as the media file's probe error; it stays the generic one.
    jobFailureMessage: "the scan could not be completed",
    register: registerMediaProberRoutes,
  });
  const files = await startFileWorkers(fileWorkersFor({ ...opts, artifacts, shared: proc.slots, processLimits: opts.limits?.processLimits, settings: opts.files }));
  return {
    ...proc,
    async close() {
      await files.stop();
      await proc.close();
    },
  };
}
