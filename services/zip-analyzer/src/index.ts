/**
 * @cva/zip-analyzer — answers POST /v2/scanZip: safe in-memory extraction of an HTML5 creative zip, its
 * index.html rendered by the tag scanner, and the zip fields (file_structure, click_tag_found, meta_ad_size,
 * minified, html5_library, has_external_assets). Each field's rules are documented in its module under fields/.
 */
export { ZipError } from "./errors.ts";
export { DEFAULT_ZIP_LIMITS, limitsFromEnv, resolveLimits, type ZipLimits } from "./limits.ts";
export { extractZip, type ExtractedFile, type ExtractedZip } from "./extract/extract.ts";
export { findEntryPoint, type EntryPoint } from "./entry-point.ts";
export { computeStaticFields, type StaticFields } from "./fields/static-fields.ts";
export { checkMinified, type MinifiedResult } from "./fields/minified.ts";
export { clickTagFound } from "./fields/click-tag.ts";
export { metaAdSize, type AdSize } from "./fields/meta-ad-size.ts";
export { html5Library, detectHtml5Libraries } from "./fields/html5-library.ts";
export { requestsLeavingOrigin, externalUrlsInHtml, externalUrlsInCss } from "./fields/external-assets.ts";
export { createZipAnalyzer, type ZipAnalyzer, type ZipAnalyzerDeps, type RenderBundle } from "./analyzer.ts";
export type { Logger } from "./logger.ts";
