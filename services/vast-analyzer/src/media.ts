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
import { mapBounded } from "./concurrency.ts";
import { expandMacros } from "./macros.ts";
import type { MediaFileInfo } from "./vast-document.ts";
import { isHttpUrl, resolveVastUrl } from "./urls.ts";

export type ProbeFn = (input: MediaInput, job: ScanJob) => Promise<MediaProbe>;

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

/**
 * Probes every media file through deps.probe (in production a SCAN_KIND_MEDIA job on another worker), at most
 * `concurrency` at once and `max` in all. A probe that throws becomes a MediaProbe with `error` and `not_probed` (the
 * failure is the scan's, not the file's); the report lists the declared URL in `url`, whatever the probe saw.
 */
export async function probeMedia(
  targets: MediaTarget[],
  opts: { probe: ProbeFn; job: ScanJob; concurrency: number; max: number; rewriteUrl: (u: string) => string; logger?: Logger },
): Promise<MediaProbe[]> {
  return mapBounded(targets, opts.concurrency, async (t, i) => {
    const declared = t.url?.href ?? t.info.url;
    if (!isHttpUrl(t.url)) {
      return unprobed(declared, "the media file URL is not an http(s) URL; not probed", false);
    }
    if (i >= opts.max) {
      return unprobed(declared, `not probed: more than ${opts.max} media files`, true);
    }
    try {
      // Requested as a player requests it (macros filled); reported as declared.
      const input = create(MediaInputSchema, { url: opts.rewriteUrl(expandMacros(t.url)), declared: declaredAttributes(t.info) });
      const probe = await opts.probe(input, opts.job);
      return create(MediaProbeSchema, { ...probe, url: declared });
    } catch (e) {
      opts.logger?.warn({ job_id: opts.job.jobId, err: e instanceof Error ? e.message : String(e), url: declared }, "media probe failed");
      return unprobed(declared, "the media file could not be probed", true);
    }
  });
}

/** The first media file whose probe produced frames gives the screenshot (the images are already stored). */
export function screenshotFrom(probes: MediaProbe[]): Screenshot | undefined {
  const p = probes.find((x) => x.firstFrame !== undefined || x.thumbnail !== undefined);
  if (!p) return undefined;
  return create(ScreenshotSchema, { highres: p.firstFrame, thumbnail: p.thumbnail });
}
