import { envInt, envString, outboundPolicyFromEnv, runScannerMain } from "@cva/platform";
import { DEFAULT_RESOURCE_LIMITS, toolUser } from "./exec.ts";
import { fileSettingsFromEnv } from "./file-workers.ts";
import { DEFAULT_LIMITS } from "./prober.ts";
import { startMediaProberProcess } from "./server.ts";

// Media prober process: serves cva.mediaprober.v1.MediaProberService on MEDIA_PROBER_PORT and works SCAN_KIND_MEDIA
// jobs from the NATS queue, MEDIA_PROBER_SLOTS at a time. Images go to the NATS Object Store. Only its own
// configuration is read here; runScannerMain does what every scanner does.
const slots = Math.max(1, envInt("MEDIA_PROBER_SLOTS", 2));
const cpuSeconds = envInt("MEDIA_FFMPEG_CPU_SECONDS", 0);
const limits = {
  maxBytes: envInt("MEDIA_MAX_BYTES", DEFAULT_LIMITS.maxBytes),
  downloadTimeoutMs: envInt("MEDIA_DOWNLOAD_TIMEOUT_MS", DEFAULT_LIMITS.downloadTimeoutMs),
  ffmpegTimeoutMs: envInt("MEDIA_FFMPEG_TIMEOUT_MS", DEFAULT_LIMITS.ffmpegTimeoutMs),
  processLimits: {
    addressSpaceBytes: envInt("MEDIA_FFMPEG_MAX_ADDRESS_SPACE_BYTES", DEFAULT_RESOURCE_LIMITS.addressSpaceBytes),
    // 0: derived from each process's time-out (exec.ts).
    ...(cpuSeconds > 0 ? { cpuSeconds } : {}),
  },
};
const workDir = envString("MEDIA_PROBER_WORK_DIR", "") || undefined;
const policy = outboundPolicyFromEnv();
// As root the decoders drop to MEDIA_PROBER_FFMPEG_USER: a user that does not exist stops the process here, not a probe.
const ffmpegUser = toolUser()?.name ?? "(this process's user)";

await runScannerMain({
  name: "media-prober",
  portEnv: "MEDIA_PROBER_PORT",
  defaultPort: 9106,
  defaultMetricsPort: 9206,
  describe: { slots, limits, policy: policy.describe(), ffmpeg_user: ffmpegUser },
  start: (base) => startMediaProberProcess({ ...base, policy, slots, limits, workDir, files: fileSettingsFromEnv() }),
});
