import { clone, create } from "@bufbuild/protobuf";
import {
  BundleFileSchema, BundleSchema, CreativeType, DimensionsSchema, MetaSchema, TagReportSchema, ZipFileSchema,
  ZipImageCheckSchema, ZipReportSchema, type Bundle, type ScanJob, type TagReport, type ZipReport,
} from "@cva/contracts";
import { ZipError } from "./errors.ts";
import { ENTRY_FILE, findEntryPoint, relativeToRoot } from "./entry-point.ts";
import { extractZip } from "./extract/extract.ts";
import { requestsLeavingOrigin } from "./fields/external-assets.ts";
import { findBackupAd } from "./fields/backup-ad.ts";
import { checkImages, DEFAULT_IMAGE_CHECK_LIMITS, type ImageCheck, type ImageCheckLimits } from "./fields/image-optimization.ts";
import { createImageWorkers } from "./fields/image-work.ts";
import { checkMinified, minifiedNotMeasured, type MinifiedResult, type MinifyOptions } from "./fields/minified.ts";
import { computeStaticFields } from "./fields/static-fields.ts";
import type { ZipLimits } from "./limits.ts";
import { silentLogger, type Logger } from "./logger.ts";

export type RenderBundle = (bundle: Bundle, job: ScanJob) => Promise<TagReport>;

export interface ZipAnalyzerDeps {
  /** Renders the bundle's entry in the tag scanner's browser (in production: a SCAN_KIND_TAG job). */
  render: RenderBundle;
  logger?: Logger;
  limits?: Partial<ZipLimits>;
  /**
   * Origin the tag scanner serves bundles from (e.g. "https://creative.cva.invalid"). When unset, the host of the
   * rendered entry document is taken as the bundle's own origin.
   */
  bundleOrigin?: string;
  minify?: MinifyOptions;
  images?: Partial<ImageCheckLimits>;
}

export interface ZipAnalyzer {
  /** Throws ZipError for a zip that is refused (→ payload_error); any other error is a processing failure. */
  analyze(job: ScanJob, options?: { signal?: AbortSignal }): Promise<ZipReport>;
}

export function createZipAnalyzer(deps: ZipAnalyzerDeps): ZipAnalyzer {
  const logger = deps.logger ?? silentLogger;
  // Image re-encoding runs on worker threads with their own heap limit (fields/image-work.ts), reused across jobs, and
  // at most maxPixels at once in the process.
  const imageLimits = { ...DEFAULT_IMAGE_CHECK_LIMITS, ...deps.images };
  const imageWorkers = createImageWorkers({ heapMb: imageLimits.workerHeapMb, pixelsAtOnce: imageLimits.maxPixels });
  return {
    async analyze(job, options = {}) {
      if (job.input.case !== "zip") throw new ZipError("the scan job carries no zip data");
      const log = { job_id: job.jobId };
      const extracted = await extractZip(job.input.value.data, deps.limits);
      const entry = findEntryPoint(extracted.files.map((f) => f.name));
      const fields = computeStaticFields(extracted.files, entry.path);
      const bundle = create(BundleSchema, {
        entry: ENTRY_FILE,
        files: extracted.files.map((f) => create(BundleFileSchema, { path: relativeToRoot(f.name, entry.root), data: f.data })),
        // Served as ad servers serve an HTML5 zip: in a frame of its ad.size, so that a responsive export lays itself
        // out in the slot, not in the scanner's 1366x768 (or 390 px) viewport. Without ad.size there is no slot size
        // to honour, and the entry is opened as the page itself.
        ...(fields.adSize.found ? { frameSize: create(DimensionsSchema, { width: fields.adSize.width, height: fields.adSize.height }) } : {}),
      });
      logger.info({ ...log, entry_point: entry.path, files: extracted.files.length, ignored: extracted.ignored.length }, "zip extracted");

      // The render (seconds, another worker) and the static work run side by side.
      const stopMinify = new AbortController();
      options.signal?.addEventListener("abort", () => stopMinify.abort(), { once: true });
      const rendered = deps.render(bundle, job);
      rendered.catch(() => stopMinify.abort());
      const minifiedPromise = checkMinified(fields.minifyCandidates, { ...deps.minify, signal: stopMinify.signal })
        .catch((err: unknown): MinifiedResult => {
          logger.warn({ ...log, err: err instanceof Error ? err.message : String(err) }, "minified check failed");
          // Nothing was checked: every candidate is unknown, so the field is reported as not measured.
          return { minified: true, measured: [], skipped: fields.minifyCandidates.map((c) => ({ name: c.name, reason: "minifier failed" })) };
        });
      const imagesPromise = checkImages(extracted.files, deps.images, stopMinify.signal, imageWorkers).catch((err: unknown): ImageCheck[] => {
        logger.warn({ ...log, err: err instanceof Error ? err.message : String(err) }, "image check failed");
        return [];
      });
      const [tag, minified, images] = await Promise.all([rendered, minifiedPromise, imagesPromise]);
      if (minified.skipped.length > 0) logger.info({ ...log, skipped: minified.skipped }, "minified check skipped files");
      const minifiedUnknown = minifiedNotMeasured(minified);

      const render = clone(TagReportSchema, tag);
      // The render ran as its own tag job; the report belongs to the zip job.
      render.jobId = job.jobId;
      render.meta = render.meta ?? create(MetaSchema, {});
      render.meta.creativeType = CreativeType.ZIP;
      if (fields.adSize.found) {
        render.declaredDimensions = create(DimensionsSchema, { width: fields.adSize.width, height: fields.adSize.height });
      }
      const leaving = requestsLeavingOrigin(
        (render.network?.responses ?? []).map((r) => ({ url: r.url, resourceType: r.resourceType })),
        deps.bundleOrigin,
      );
      logger.debug({ ...log, external_requests: leaving.length, external_refs: fields.staticExternalUrls.length }, "external assets");

      // The backup must have the ad's size: the declared ad.size, else what the render measured.
      const size = fields.adSize.found ? fields.adSize : render.dimensions;
      const backup = findBackupAd(
        extracted.files.map((f) => ({ name: f.name, data: f.data, referenced: fields.isReferenced(f.name) })),
        size ? { width: size.width, height: size.height } : undefined,
      );
      // Used: read by the creative's code, or its click opened a page (the render clicked it, v3).
      const lp = render.landingPage;
      const clicked = lp !== undefined && lp.tab !== "" && lp.tab !== "none" && lp.url !== "";
      const externalAssets = [...new Set([...leaving, ...fields.staticExternalUrls])];

      return create(ZipReportSchema, {
        render,
        clickTagFound: fields.clickTagFound,
        clickTagUsed: fields.clickTagFound && (fields.clickTagUsed || clicked),
        hasBackupAd: backup !== "",
        backupAd: backup,
        externalAssets,
        zipSize: BigInt(job.input.value.data.length),
        unzippedSize: BigInt(fields.fileStructure.reduce((n, f) => n + f.bytes, 0)),
        images: images.map((i) =>
          create(ZipImageCheckSchema, { name: i.name, bytes: BigInt(i.bytes), reencodedBytes: BigInt(i.reencodedBytes), width: i.width, height: i.height, error: i.error }),
        ),
        fileStructure: fields.fileStructure.map((f) => create(ZipFileSchema, { name: f.name, bytes: BigInt(f.bytes), type: f.type })),
        hasExternalAssets: leaving.length > 0 || fields.staticExternalUrls.length > 0,
        html5Library: fields.html5Library,
        metaAdSize: fields.adSize.found,
        // A placeholder when not measured (listed in not_measured, left out of the JSON).
        minified: minified.minified,
        entryPoint: entry.path,
        notMeasured: minifiedUnknown ? ["minified"] : [],
        errors: minifiedUnknown ? [minifiedUnknown] : [],
      });
    },
  };
}
