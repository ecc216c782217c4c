import { create } from "@bufbuild/protobuf";
import {
  MediaFileAttributesSchema,
  MediaInputSchema,
  MediaProbeSchema,
  ScreenshotSchema,
  type MediaFileAttributes,
  type MediaInput,
  type MediaProbe,
  type ScanJob,
  type Screenshot,
} from "@cva/contracts";
import type { Logger } from "@cva/platform";
import type { VastLimits } from "./limits.ts";
import { DEADLINE_REACHED, formatBytes, type ScanBudget } from "./scan-budget.ts";
import { mapBounded } from "./concurrency.ts";
import { expandMacros } from "./macros.ts";
import type { MediaFileInfo } from "./vast-document.ts";
import { isHttpUrl, resolveVastUrl } from "./urls.ts";

/**
 * Probes one media file. `timeoutMs`: what the scan's deadline leaves for it (the probe must answer within it; the
 * dispatcher's probe makes it the child job's time-out, so the prober bounds its own phases by it).
 */
export type ProbeFn = (input: MediaInput, job: ScanJob, opts?: { timeoutMs?: number }) => Promise<MediaProbe>;

/**
 * What of a media file nothing was downloaded for was not measured: its HTTP status, size and speed (the report
 * leaves these scalars out rather than show 0), its file_info and images (present in the report, empty).
 */
export const NOTHING_MEASURED = ["http_code", "file_size", "download_speed", "file_info", "poster", "film_strip", "audio_wave"];

/** A media file nothing was downloaded for: `error` says why. `notProbed` when the failure is the scan's, not the file's. */
export function unprobed(url: string, error: string, notProbed: boolean): MediaProbe {
  return create(MediaProbeSchema, { url, error, notProbed, notMeasured: [...NOTHING_MEASURED] });
}

export interface MediaTarget {
  info: MediaFileInfo;
  /** Resolved against the inline document; undefined when the value is no http(s) URL. */
  url: URL | undefined;
  /** Analyse its flashes (MediaInput.analyze_flashes): its creative's chosen rendition (flash-rendition.ts). */
  flashes?: boolean;
}

export function declaredAttributes(info: MediaFileInfo): MediaFileAttributes {
  const a = info.attrs;
  return create(MediaFileAttributesSchema, {
    bitrate: a.bitrate,
    delivery: a.delivery,
    height: a.height,
    maintainaspectratio: a.maintainaspectratio,
    scalable: a.scalable,
    type: a.type,
    width: a.width,
    codec: a.codec,
    apiFramework: a.apiFramework,
    id: a.id,
  });
}

export function mediaTargets(files: MediaFileInfo[], baseUrl: string): MediaTarget[] {
  return files.map((info) => ({ info, url: resolveVastUrl(info.url, baseUrl) }));
}

export interface MediaSessionDeps {
  probe: ProbeFn;
  job: ScanJob;
  limits: VastLimits;
  budget: ScanBudget;
  rewriteUrl: (u: string) => string;
  logger?: Logger;
}

/**
 * The scan's media files, across every ad and creative: each URL is probed once (the same file listed by several
 * MediaFiles or ads is downloaded and measured once, its probe reused for each), at most `maxProbedMediaFiles` URLs,
 * each download within the scan's byte budget and every probe within its deadline.
 */
export interface MediaSession {
  /** The probe of one media file, `url` = the file's declared (resolved) URL. */
  probe(target: MediaTarget): Promise<MediaProbe>;
}

export function createMediaSession(deps: MediaSessionDeps): MediaSession {
  const { limits, budget } = deps;
  const byUrl = new Map<string, Promise<MediaProbe>>();

  async function probeOnce(url: URL, info: MediaFileInfo, declared: string, flashes: boolean): Promise<MediaProbe> {
    if (budget.time(limits.minProbeMs).cut) return unprobed(declared, `not probed: ${DEADLINE_REACHED}`, true);
    // Reserved before the request: the download can never take more than this (the prober stops at it).
    const grant = await budget.reserve(limits.mediaFileMaxBytes);
    if (grant.bytes === 0) {
      grant.settle(0);
      return unprobed(declared, `not probed: the scan's byte budget of ${formatBytes(budget.totalBytes)} was reached`, true);
    }
    // Waiting for the reservation may have cost the time.
    const time = budget.time(Number.POSITIVE_INFINITY);
    if (time.ms < limits.minProbeMs) {
      grant.settle(0);
      return unprobed(declared, `not probed: ${DEADLINE_REACHED}`, true);
    }
    try {
      // Requested as a player requests it (macros filled); reported as declared.
      const input = create(MediaInputSchema, {
        url: deps.rewriteUrl(expandMacros(url)), declared: declaredAttributes(info), maxBytes: BigInt(grant.bytes),
        analyzeFlashes: flashes,
      });
      const probe = await deps.probe(input, deps.job, { timeoutMs: time.ms });
      // A prober that predates received_bytes still states the size of what it read.
      grant.settle(Math.max(Number(probe.receivedBytes), Number(probe.fileSize)));
      return probe;
    } catch (e) {
      // Whatever the probe got so far is unknown: counted as all it was allowed.
      grant.settle(grant.bytes);
      deps.logger?.warn({ job_id: deps.job.jobId, err: e instanceof Error ? e.message : String(e), url: declared }, "media probe failed");
      return unprobed(declared, "the media file could not be probed", true);
    }
  }

  return {
    async probe(t) {
      const declared = t.url?.href ?? t.info.url;
      if (!isHttpUrl(t.url)) return unprobed(declared, "the media file URL is not an http(s) URL; not probed", false);
      // As written (macros unfilled, fragment kept): a cache-buster filled per request must not make one file two.
      const key = t.url.href;
      let run = byUrl.get(key);
      if (!run) {
        if (byUrl.size >= limits.maxProbedMediaFiles) {
          return unprobed(declared, `not probed: more than ${limits.maxProbedMediaFiles} media files`, true);
        }
        run = probeOnce(t.url, t.info, declared, t.flashes ?? false);
        byUrl.set(key, run);
      }
      return create(MediaProbeSchema, { ...(await run), url: declared });
    },
  };
}

/** Every target through the session, at most `concurrency` at once; results in target order. */
export function probeMedia(targets: MediaTarget[], opts: { media: MediaSession; concurrency: number }): Promise<MediaProbe[]> {
  return mapBounded(targets, opts.concurrency, (t) => opts.media.probe(t));
}

/** The first media file whose probe produced frames gives the screenshot (the images are already stored). */
export function screenshotFrom(probes: MediaProbe[]): Screenshot | undefined {
  const p = probes.find((x) => x.firstFrame !== undefined || x.thumbnail !== undefined);
  if (!p) return undefined;
  return create(ScreenshotSchema, { highres: p.firstFrame, thumbnail: p.thumbnail });
}
