/**
 * @cva/zip-analyzer — answers POST /v2/scanZip: safe in-memory extraction of an HTML5 creative zip, its
 * index.html rendered by the tag scanner, and the zip fields. Decisions (details in each module):
 *  - Extraction (extract/extract.ts): declared sizes, ratio, names, symlinks, encryption, duplicates (also by case)
 *    and overlapping/shared entry spans are checked before anything is inflated; real bytes are counted and CRCs
 *    verified while inflating. Every refusal is a ZipError with a client-safe message (→ payload_error).
 *  - Nested archives (limits.ts): refused by default (name or magic bytes); `nestedArchives: "list"` keeps them as
 *    opaque files of type "archive". Never extracted.
 *  - OS metadata (__MACOSX/, .DS_Store, Thumbs.db) is validated but left out of the bundle and file_structure.
 *  - Entry point (entry-point.ts): exactly index.html at the root or in the single top-level folder.
 *  - file_structure names are the stored paths (with the top-level folder); the bundle's are relative to the root.
 *  - click_tag_found (fields/click-tag.ts): clickTag-named declarations in index.html's inline scripts, plus vendor
 *    calls that register a named clickTag (amo.registerClick, dhtml.getVar); not Enabler.exit / EB.clickthrough /
 *    APPNEXUS.* exits.
 *  - minified (fields/minified.ts): JS/CSS files only (not inline blocks), terser / lightningcss in a worker thread,
 *    > 5% saving on any file → false; unparseable files are skipped and logged.
 *  - has_external_assets (fields/external-assets.ts): render requests off the bundle origin OR static asset URLs.
 */
export { ZipError } from "./errors.ts";
export { DEFAULT_ZIP_LIMITS, limitsFromEnv, resolveLimits, type ZipLimits } from "./limits.ts";
export { extractZip, type ExtractedFile, type ExtractedZip } from "./extract/extract.ts";
export { findEntryPoint, type EntryPoint } from "./entry-point.ts";
export { computeStaticFields, type StaticFields } from "./fields/static-fields.ts";
export { checkMinified, minifiedNotMeasured, type MinifiedResult } from "./fields/minified.ts";
export { clickTagFound } from "./fields/click-tag.ts";
export { metaAdSize, type AdSize } from "./fields/meta-ad-size.ts";
export { html5Library, detectHtml5Libraries } from "./fields/html5-library.ts";
export { requestsLeavingOrigin, externalUrlsInHtml, externalUrlsInCss } from "./fields/external-assets.ts";
export { createZipAnalyzer, type ZipAnalyzer, type ZipAnalyzerDeps, type RenderBundle } from "./analyzer.ts";
export type { Logger } from "./logger.ts";
