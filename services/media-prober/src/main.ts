import {
  bindHostFromEnv, connectNats, createArtifactWriter, createLogger, envInt, envString, exitOnSignals, loadCommonConfig, outboundPolicyFromEnv, serviceCredentialsFromEnv,
} from "@cva/platform";
import { DEFAULT_RESOURCE_LIMITS, PRLIMIT, prlimitAvailable } from "./exec.ts";
import { fileSettingsFromEnv } from "./file-workers.ts";
import { DEFAULT_LIMITS } from "./prober.ts";
import { startMediaProberProcess } from "./server.ts";

// Media prober process: serves cva.mediaprober.v1.MediaProberService on MEDIA_PROBER_PORT and works SCAN_KIND_MEDIA
// jobs from the NATS queue, MEDIA_PROBER_SLOTS at a time. Images go to the NATS Object Store.
const logger = createLogger("media-prober");
const { natsUrl, natsAuth, serverLocation } = loadCommonConfig();
const port = envInt("MEDIA_PROBER_PORT", 9106);
const metricsPort = envInt("METRICS_PORT", 9206);
const slots = Math.max(1, envInt("MEDIA_PROBER_SLOTS", 2));
const limits = {
  maxBytes: envInt("MEDIA_MAX_BYTES", DEFAULT_LIMITS.maxBytes),
  downloadTimeoutMs: envInt("MEDIA_DOWNLOAD_TIMEOUT_MS", DEFAULT_LIMITS.downloadTimeoutMs),
  ffmpegTimeoutMs: envInt("MEDIA_FFMPEG_TIMEOUT_MS", DEFAULT_LIMITS.ffmpegTimeoutMs),
  processLimits: {
    addressSpaceBytes: envInt("MEDIA_FFMPEG_MAX_ADDRESS_SPACE_BYTES", DEFAULT_RESOURCE_LIMITS.addressSpaceBytes),
    // 0: derived from each process's time-out (exec.ts).
    ...(envInt("MEDIA_FFMPEG_CPU_SECONDS", 0) > 0 ? { cpuSeconds: envInt("MEDIA_FFMPEG_CPU_SECONDS", 0) } : {}),
  },
};
// ffmpeg never runs without its OS limits: a host without util-linux's prlimit is a deployment error.
if (!prlimitAvailable()) {
  logger.fatal({ path: PRLIMIT }, "prlimit (util-linux) is missing: ffmpeg cannot be run under its resource limits");
  process.exit(1);
}
const workDir = envString("MEDIA_PROBER_WORK_DIR", "") || undefined;

const policy = outboundPolicyFromEnv();
const credentials = serviceCredentialsFromEnv();
const nc = await connectNats(natsUrl, "media-prober", { auth: natsAuth });
// Write-only: media files are untrusted input; this process must not be able to read anyone's images.
const artifacts = createArtifactWriter(nc);
const proc = await startMediaProberProcess({
  nc, logger, policy, artifacts, port, metricsPort, host: bindHostFromEnv(), credentials, location: serverLocation, slots, limits, workDir,
  files: fileSettingsFromEnv(),
});
logger.info(
  { port: proc.port, metrics_port: proc.metricsPort, slots, location: serverLocation, limits, policy: policy.describe() },
  "media-prober ready",
);

exitOnSignals(logger, "media-prober", async () => {
  await proc.close();
  await nc.drain();
});
