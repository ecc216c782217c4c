import {
  createSlotGate, createUploadReader, failedOutcome, startWorker, type ArtifactSink, type NatsConnection, type OutboundPolicy, type Slots, type Worker,
} from "@cva/platform";
import type { Logger } from "pino";
import type { ResourceLimits } from "./exec.ts";
import { FILE_KINDS, runFileJob, type FileJobDeps } from "./file-job.ts";
import { createFileProber, DEFAULT_FILE_PROBE_LIMITS } from "./file-prober.ts";

/*
 * The queue workers of the raw-file kinds (SCAN_KIND_VIDEO_FILE, SCAN_KIND_AUDIO_FILE) beside the process's VAST media
 * worker. Both kinds share one gate of `slots`: a pull is issued only while a slot is free, whichever kind it is for,
 * so at most `slots` files are measured at once. They also count in the process's slots (`shared`), which the direct
 * ProbeMedia RPC checks: a direct probe is refused while files take every slot. (The VAST media worker keeps its own
 * gate, so the process runs at most MEDIA_PROBER_SLOTS VAST probes plus `slots` files.)
 */
export interface FileWorkersOptions {
  nc: NatsConnection;
  logger: Logger;
  location: string;
  slots: number;
  shared?: Slots;
  job: FileJobDeps;
}

export interface FileWorkers {
  stop(): Promise<void>;
}

export async function startFileWorkers(opts: FileWorkersOptions): Promise<FileWorkers> {
  const gate = createSlotGate(opts.slots);
  const workers: Worker[] = [];
  for (const kind of FILE_KINDS.keys()) {
    workers.push(
      await startWorker(opts.nc, {
        kind,
        location: opts.location,
        slots: opts.slots,
        gate,
        logger: opts.logger,
        async handle(job, ctx) {
          opts.shared?.acquire();
          try {
            return await runFileJob(opts.job, job, { signal: ctx.signal, logger: ctx.logger, location: ctx.location });
          } catch (err) {
            // Logged once, in the worker's "job done" line; the client gets the generic processing error.
            return failedOutcome("the file could not be measured", err);
          } finally {
            opts.shared?.release();
          }
        },
      }),
    );
  }
  return {
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}

/** How the process works raw files: its slots and limits (main.ts reads them from the environment). */
export interface FileSettings {
  /** Files measured at once; MEDIA_PROBER_SLOTS by default. */
  slots?: number;
  /** Largest file, bytes (the edge's per-endpoint limit comes with each job and applies when smaller). */
  maxBytes: number;
  /** Reading an upload or downloading a URL. */
  fetchTimeoutMs: number;
  /** ffprobe and the packet scan. */
  ffprobeTimeoutMs: number;
  /** Each decode pass. */
  analysisTimeoutMs: number;
}

export const DEFAULT_FILE_SETTINGS: FileSettings = {
  maxBytes: 500 * 1024 * 1024,
  fetchTimeoutMs: 300_000,
  ffprobeTimeoutMs: DEFAULT_FILE_PROBE_LIMITS.ffprobeTimeoutMs,
  analysisTimeoutMs: DEFAULT_FILE_PROBE_LIMITS.analysisTimeoutMs,
};

export function fileSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): FileSettings {
  const int = (name: string, fallback: number) => {
    const v = Number(env[name]);
    return env[name] !== undefined && Number.isInteger(v) && v > 0 ? v : fallback;
  };
  return {
    ...(env.MEDIA_FILE_SLOTS ? { slots: int("MEDIA_FILE_SLOTS", 1) } : {}),
    maxBytes: int("MEDIA_FILE_MAX_BYTES", DEFAULT_FILE_SETTINGS.maxBytes),
    fetchTimeoutMs: int("MEDIA_FILE_FETCH_TIMEOUT_MS", DEFAULT_FILE_SETTINGS.fetchTimeoutMs),
    ffprobeTimeoutMs: int("MEDIA_FFMPEG_TIMEOUT_MS", DEFAULT_FILE_SETTINGS.ffprobeTimeoutMs),
    analysisTimeoutMs: int("MEDIA_FILE_ANALYSIS_TIMEOUT_MS", DEFAULT_FILE_SETTINGS.analysisTimeoutMs),
  };
}

/** The file workers of a media prober process, from its dependencies. */
export function fileWorkersFor(p: {
  nc: NatsConnection; logger: Logger; location: string; slots: number; shared: Slots; policy: OutboundPolicy; artifacts: ArtifactSink;
  workDir?: string; processLimits?: Partial<ResourceLimits>; settings?: Partial<FileSettings>;
}): FileWorkersOptions {
  const s: FileSettings = { ...DEFAULT_FILE_SETTINGS, ...p.settings };
  return {
    nc: p.nc,
    logger: p.logger,
    location: p.location,
    slots: Math.max(1, s.slots ?? p.slots),
    shared: p.shared,
    job: {
      prober: createFileProber({
        artifacts: p.artifacts,
        limits: { ffprobeTimeoutMs: s.ffprobeTimeoutMs, analysisTimeoutMs: s.analysisTimeoutMs, processLimits: p.processLimits },
      }),
      source: { uploads: createUploadReader(p.nc), policy: p.policy },
      limits: { maxBytes: s.maxBytes, fetchTimeoutMs: s.fetchTimeoutMs },
      workDir: p.workDir,
    },
  };
}
