import { ScanKind } from "@cva/contracts";
import {
  createSlotGate, createUploadReader, failedOutcome, splitLocations, startWorker, type ArtifactSink, type NatsConnection, type OutboundPolicy, type Slots, type Worker,
} from "@cva/platform";
import type { Logger } from "pino";
import type { ResourceLimits } from "./exec.ts";
import { FILE_KINDS, runFileJob, type FileJobDeps } from "./file-job.ts";
import { createFileProber, DEFAULT_FILE_PROBE_LIMITS } from "./file-prober.ts";
import { createImageAnalyzer, DEFAULT_DECODE_OPTIONS, DEFAULT_IMAGE_LIMITS, type DecodeProcessOptions } from "./image/index.ts";
import { runImageJob, type ImageJobDeps } from "./image-job.ts";

/*
 * The queue workers of the raw-file kinds (SCAN_KIND_VIDEO_FILE, SCAN_KIND_AUDIO_FILE, SCAN_KIND_IMAGE_FILE) beside
 * the process's VAST media worker. Images have a gate of their own, one slot per image decoder process: an image
 * (≤ 20 MB, decoded in well under a second) never waits behind a 500 MB video, and a pull is issued only while a
 * decoder is free. They do not count in the process's ffmpeg slots (`shared`): no ffmpeg runs for them. Both kinds share one gate of `slots`: a pull is issued only while a slot is free, whichever kind it is for,
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
  /** Image files (image-job.ts); no image worker without it. */
  image?: ImageJobDeps & { slots: number };
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
        // Four pulls (video and audio, each location) share the gate: a job takes its slot when it arrives, not a
        // pull while it waits (worker.ts), or a job of the location whose pull was not waiting sat in the queue until a
        // holder's pull expired: 194–863 ms between dispatch and the job's start, 2026-11-27 (media-prober README).
        slotOnArrival: true,
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
  const image = opts.image;
  if (image) {
    // The decoder processes start with the service, not on a client's first image.
    await image.analyzer.warmUp();
    // One worker, with a gate of its own, per location served. A worker serving several locations shares its slots
    // between their pulls: with one decoder, one slot, a pull waiting on the other location held it until its
    // expiry (1 s), and an image waited that long for nothing (measured: p50 1 057 ms end to end, ~900 ms of it
    // between dispatch and the job's start). Here each location always has a pull waiting; the decoder processes
    // are the real bound (analyzer's queue, whose wait counts in the scan's deadline), so at most one image per
    // extra location waits in this process (≤ 20 MB each) while another decodes.
    for (const location of splitLocations(opts.location)) {
      workers.push(
        await startWorker(opts.nc, {
          kind: ScanKind.IMAGE_FILE,
          location,
          slots: image.slots,
          gate: createSlotGate(image.slots),
          logger: opts.logger,
          async handle(job, ctx) {
            try {
              return await runImageJob(image, job, { signal: ctx.signal, logger: ctx.logger, location: ctx.location });
            } catch (err) {
              return failedOutcome("the image could not be measured", err);
            }
          },
        }),
      );
    }
  }
  return {
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
      await image?.analyzer.close();
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
  /** Largest image file, bytes (issue 19: 20 MB). */
  imageMaxBytes: number;
  /** Image decoder processes, i.e. images measured at once. */
  imageProcesses: number;
  /** scanVideo's video pass started beside ffprobe from an MP4's index (file-prober.ts, the early pass). */
  earlyPass: boolean;
}

export const DEFAULT_FILE_SETTINGS: FileSettings = {
  maxBytes: 500 * 1024 * 1024,
  fetchTimeoutMs: 300_000,
  ffprobeTimeoutMs: DEFAULT_FILE_PROBE_LIMITS.ffprobeTimeoutMs,
  analysisTimeoutMs: DEFAULT_FILE_PROBE_LIMITS.analysisTimeoutMs,
  imageMaxBytes: DEFAULT_IMAGE_LIMITS.maxBytes,
  imageProcesses: DEFAULT_DECODE_OPTIONS.processes,
  earlyPass: true,
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
    imageMaxBytes: int("MEDIA_IMAGE_MAX_BYTES", DEFAULT_FILE_SETTINGS.imageMaxBytes),
    imageProcesses: int("MEDIA_IMAGE_PROCESSES", DEFAULT_FILE_SETTINGS.imageProcesses),
    // Off only when asked (an A/B of the stack, e.g. the bench with and without it).
    earlyPass: env.MEDIA_FILE_EARLY_PASS !== "0",
  };
}

/** The file workers of a media prober process, from its dependencies. */
export function fileWorkersFor(p: {
  nc: NatsConnection; logger: Logger; location: string; slots: number; shared: Slots; policy: OutboundPolicy; artifacts: ArtifactSink;
  workDir?: string; processLimits?: Partial<ResourceLimits>; settings?: Partial<FileSettings>; imageDecode?: Partial<DecodeProcessOptions>;
}): FileWorkersOptions {
  const s: FileSettings = { ...DEFAULT_FILE_SETTINGS, ...p.settings };
  const uploads = createUploadReader(p.nc);
  const imageProcesses = Math.max(1, p.imageDecode?.processes ?? s.imageProcesses);
  return {
    nc: p.nc,
    logger: p.logger,
    location: p.location,
    slots: Math.max(1, s.slots ?? p.slots),
    shared: p.shared,
    job: {
      prober: createFileProber({
        artifacts: p.artifacts,
        limits: { ffprobeTimeoutMs: s.ffprobeTimeoutMs, analysisTimeoutMs: s.analysisTimeoutMs, processLimits: p.processLimits, earlyPass: s.earlyPass },
      }),
      source: { uploads, policy: p.policy },
      limits: { maxBytes: s.maxBytes, fetchTimeoutMs: s.fetchTimeoutMs },
      workDir: p.workDir,
    },
    image: {
      analyzer: createImageAnalyzer({
        artifacts: p.artifacts, limits: { maxBytes: s.imageMaxBytes }, decode: { ...p.imageDecode, processes: imageProcesses },
      }),
      source: { uploads, policy: p.policy },
      maxBytes: s.imageMaxBytes,
      fetchTimeoutMs: s.fetchTimeoutMs,
      workDir: p.workDir,
      slots: imageProcesses,
    },
  };
}
