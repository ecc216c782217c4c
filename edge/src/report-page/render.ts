import type { reportstore } from "@cva/contracts";
import { byKey, bytes, dateTime, label, ms, num } from "./format.ts";
import { bulletList, esc, flag, isObj, kvTable, list, obj, section, text, type J } from "./html.ts";
import { renderAccessibility } from "./sections/accessibility.ts";
import { cpuLoadFact, heavyAdFact } from "./sections/cpu.ts";
import { creativeFileTable, fileMediaCard, IMAGE_KEYS, imageFacts, imageMetadata } from "./sections/file.ts";
import { renderOther } from "./sections/generic.ts";
import { mediaFileCard, renderAds, renderLint, renderPixels, renderTrackers, renderVastCreatives, renderWrapperChain, renderXml } from "./sections/media.ts";
import { renderSimid, renderVerifications } from "./sections/interactive.ts";
import { renderNetwork } from "./sections/network.ts";
import { renderPrivacy } from "./sections/privacy.ts";
import { insecureUrls, renderConsole, renderCookies, renderDialogs, renderLocalStorage, renderMissingAssets } from "./sections/storage.ts";
import { counts, renderTestsTable, renderVerdict, testRows } from "./sections/tests.ts";
import { renderScreens, renderTimeline } from "./sections/visuals.ts";
import { renderTagFilmStrip } from "./sections/film-strip.ts";
import { renderExternalAssets, renderZipFiles, renderZipImages } from "./sections/zip.ts";
import { REPORT_CSS_NAME, REPORT_ICON_NAME } from "./style.ts";

// The human-readable report page (scan_results.report_url). Rendered from the stored JSON report — the same document
// the client got — so the page shows exactly what the API returned. No script at all: static HTML, one stylesheet
// from our origin, images only from our artifact URLs (the CSP in routes/reports.ts holds it to that).
//
// Sections are chosen by what the report holds, not by its kind: a known object gets its section (network → waterfall,
// cookies → table, creatives → media files, file_info → a media file card …), and every top-level field no section
// showed lands in "Other fields", so a new kind of report (video, image, audio) or a new field is never hidden.

const TITLES: Record<string, string> = {
  tag_v3: "Ad tag report", tag_v2: "Ad tag report (v2)", zip_v2: "HTML5 zip report (v2)", zip_v3: "HTML5 zip report", vast_v3: "VAST report",
  video_v3: "Video report", image_v3: "Image report", audio_v3: "Audio report",
};

function titleOf(kind: string): string {
  if (TITLES[kind]) return TITLES[kind];
  const m = /^([a-z]+)_(v\d+)$/.exec(kind);
  return m ? `${label(m[1]!)} report${m[2] === "v3" ? "" : ` (${m[2]})`}` : "Scan report";
}

type Fact = [key: string, label: string, show: (v: any, r: J) => string]; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON values

const msOr = (neg: string) => (v: unknown) => (typeof v !== "number" ? "" : v < 0 ? esc(neg) : esc(ms(v)));
const good = (v: unknown) => flag(v, true);
const bad = (v: unknown) => flag(v, false);
const plain = (v: unknown) => esc(typeof v === "number" ? num(v) : text(v));

// The fields a person looks for first, in that order; each only when the report has it.
const FACTS: Fact[] = [
  ["dimensions", "Size", (v) => (isObj(v) && v.text ? esc(`${v.text}\u00a0px`) : "")],
  ["creative_rendered", "Rendered", good],
  ["time_to_visual_start", "First paint", msOr("nothing painted")],
  ["animation_duration", "Animation", msOr("still moving at the time-out")],
  ["3pas", "Third-party ad server", (v) => esc(v || "none detected")],
  ["blocked_by_adblock", "Likely blocked by ad blockers", bad],
  ["ssl", "All requests over https", (v) => (isObj(v) && typeof v.compliant === "boolean" ? good(v.compliant) : "")],
  ["cpu_usage", "CPU (main thread)", msOr("not measured")],
  ["cpu", "CPU load on a reference phone", cpuLoadFact],
  ["heavy_ad", "Chrome Heavy Ad Intervention", heavyAdFact],
  ["memory_usage", "Memory", (v) => (typeof v === "number" ? esc(bytes(v)) : "")],
  ["dom_content_loaded", "DOMContentLoaded", msOr("not measured")],
  ["mobile_friendly", "Mobile friendly", good],
  ["has_border", "Has a border", (v) => flag(v)],
  ["has_video", "Plays video", (v) => flag(v)],
  ["iframes", "Iframes", plain],
  ["uses_document_write", "Uses document.write", bad],
  ["visual_artifacts", "Visual artifacts", bad],
  ["zip_size", "Zip size", (v) => (typeof v === "number" ? esc(bytes(v)) : "")],
  ["unzipped_size", "Unzipped", (v) => (typeof v === "number" ? esc(bytes(v)) : "")],
  ["html5_library", "HTML5 library", (v) => esc(v || "none detected")],
  ["click_tag_found", "Click tag declared", good],
  ["click_tag_used", "Click tag used", good],
  ["meta_ad_size", "ad.size meta tag", good],
  ["minified", "Minified", good],
  ["has_external_assets", "Loads external assets", bad],
  ["has_backup_ad", "Backup image", (v, r) => (v ? `${flag(true, true)} <code>${esc(r.backup_ad)}</code>` : flag(false, true))],
  ["type", "VAST type", plain],
  ["vast_version", "VAST version", plain],
  ["ad_system", "Ad system", plain],
  ["ad_title", "Ad title", plain],
  ["wrapper_redirects", "Wrapper redirects", plain],
  ["cors", "CORS for players", good],
];

/** Keys each section shows, so "Other fields" shows the rest. */
const SHOWN_ELSEWHERE = ["scan_results", "measurement", "name", "job_id", "meta", "backup_ad", "screenshot", "landing_page", "errors", "not_measured", "vast_url_base64"];

export function renderReportPage(stored: reportstore.StoredReport, opts: { publicBaseUrl: string }): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(stored.json).toString("utf8"));
  } catch {
    parsed = {};
  }
  const report: J = obj(parsed);
  const base = opts.publicBaseUrl.replace(/\/+$/, "");
  const title = titleOf(stored.reportKind);
  const has = (k: string) => report[k] !== undefined;
  const shown = new Set<string>(SHOWN_ELSEWHERE);
  const sections: Array<{ id: string; title: string; html: string }> = [];
  const add = (id: string, heading: string, html: string, ...keys: string[]) => {
    for (const k of keys) shown.add(k);
    if (html) sections.push({ id, title: heading, html });
  };

  // The raw-file reports (scanVideo, scanAudio, scanImage): their sections below; durations in ms (not the VAST s).
  const mediaFile = stored.reportKind === "video_v3" || stored.reportKind === "audio_v3";
  const imageFile = stored.reportKind === "image_v3";
  const rows = testRows(report);
  const verdict = renderVerdict(counts(report, rows), rows, measurement(report.measurement));

  // An image's animation and border are in its own section ("forever" is no time-out there).
  const facts = FACTS.filter(([k]) => has(k) && !(imageFile && IMAGE_KEYS.includes(k))).map(([k, l, show]): [string, string] => {
    shown.add(k);
    return [l, show(report[k], report)];
  }).filter(([, v]) => v !== "");
  const half = Math.ceil(facts.length / 2);
  add("glance", "At a glance", facts.length ? `<div class="cols">${kvTable(facts.slice(0, half))}${kvTable(facts.slice(half))}</div>` : "");

  if (imageFile) {
    add("image", "The image", imageFacts(report, base), ...IMAGE_KEYS);
    add("metadata", "Metadata left in the file", imageMetadata(report), "metadata");
  } else add("looks", "What it looked like", renderScreens(report, base), "click_point");
  if (!imageFile && (has("time_to_visual_start") || has("animation_duration"))) add("animation", "Animation", renderTimeline(report, rows));
  if (!mediaFile && Array.isArray(report.film_strip)) add("film-strip", "Film strip", renderTagFilmStrip(report, base), "film_strip");
  if (mediaFile || imageFile) add("file", "The file as received", creativeFileTable(report), "file");
  if (mediaFile && isObj(report.file_info)) {
    add("media", "Media file", fileMediaCard(report, base), "file_info", "poster", "film_strip", "film_strip_times", "audio_wave", "file_size", "duration", "duration_ms", "error", "analysis_error");
  } else if (isObj(report.file_info)) {
    add("media", "Media file", mediaFileCard(report, "The file", base), "file_info", "poster", "film_strip", "film_strip_times", "audio_wave", "url", "http_code", "file_size", "download_speed", "error", "analysis_error", "attributes", "duration_ms");
  }
  if (has("creatives")) add("creatives", "Creatives and media files", renderVastCreatives(report, base), "creatives");
  add("tests", "All tests", renderTestsTable(rows));
  if (has("accessibility")) add("accessibility", "Accessibility", renderAccessibility(report), "accessibility");
  // An image report's error (the media cards show a video's or audio's): said with the problems, not as a bare field.
  add("problems", "Problems found", problems(report, imageFile ? [text(report.error)] : []), ...(imageFile ? ["error"] : []));
  if (has("lint")) add("lint", "VAST lint", renderLint(report), "lint");
  if (has("network")) add("network", "Network", renderNetwork(report), "network");
  if (has("privacy")) add("privacy", "Privacy and consent", renderPrivacy(report), "privacy");
  if (has("cookies")) add("cookies", "Cookies", renderCookies(report), "cookies");
  if (has("local_storage")) add("storage", "Local storage", renderLocalStorage(report), "local_storage");
  add("dialogs", "Dialogs", renderDialogs(report), "dialogs");
  add("console", "Console", renderConsole(report), "console");
  add("missing", "Missing assets", renderMissingAssets(report), "missing_assets");
  add("insecure", "Insecure URLs", bulletList(insecureUrls(report), { max: 200, code: true }), "ssl");
  add("files", "Files in the zip", renderZipFiles(report), "file_structure");
  add("images", "Images in the zip", renderZipImages(report), "images");
  add("external", "External assets", renderExternalAssets(report), "external_assets");
  add("chain", "Wrapper chain", renderWrapperChain(report), "wrapper_chain", "schema_checks");
  if (has("trackers")) add("trackers", "Tracker URLs with a fault", renderTrackers(report), "trackers");
  add("ads", "Ads", renderAds(report), "ads");
  if (has("ads")) add("verifications", "Open Measurement verifications", renderVerifications(report));
  add("simid", "SIMID interactive files", renderSimid(report), "simid");
  add("pixels", "Impression pixels", renderPixels(report), "pixels");
  add("macros", "Unexpanded macros", bulletList(list(report.unexpanded_macros).map(text), { code: true }), "unexpanded_macros");
  add("xml", "VAST XML", renderXml(report), "xml");
  add("other", "Other fields", renderOther(report, shown, base));
  add("scan", "Scan details", scanDetails(report, stored));

  const name = text(report.name);
  const meta = obj(report.meta);
  const vastUrl = typeof report.vast_url_base64 === "string" ? Buffer.from(report.vast_url_base64, "base64").toString("utf8") : "";
  const sub = [
    `job <code>${esc(report.job_id || stored.jobId)}</code>`,
    meta.timestamp ? esc(`scanned ${dateTime(Number(meta.timestamp))}`) : "",
    [meta.device, meta.server_location].filter(Boolean).length ? esc([text(meta.device), text(meta.server_location)].filter(Boolean).join(", ")) : "",
  ].filter(Boolean).join(" · ");
  const toc = [{ id: "verdict", title: "Verdict" }, ...sections]
    .map((s) => `<li><a href="#${esc(s.id)}">${esc(s.title)}</a></li>`)
    .join("");

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><meta name="referrer" content="no-referrer">
<title>${esc(title)} — ${esc(name || stored.jobId)}</title>
<link rel="stylesheet" href="assets/${REPORT_CSS_NAME}"><link rel="icon" href="assets/${REPORT_ICON_NAME}" type="image/svg+xml"></head>
<body>
<header class="top"><div class="wrap"><p class="kicker">Creative Validation · ${esc(title)}</p>
<h1>${esc(name || (vastUrl ? vastUrl : "Unnamed creative"))}</h1>
<p class="sub">${sub}</p>${vastUrl && name ? `<p class="sub url">${esc(vastUrl)}</p>` : ""}</div></header>
<nav class="toc" aria-label="Sections of this report"><ul>${toc}</ul></nav>
<main id="main"><div id="verdict">${verdict}</div>
${sections.map((s) => section(s.id, s.title, s.html)).join("\n")}
</main>
<footer><p>This page shows the JSON report exactly as the API returned it (<code>GET /v3/reports/{job_id}</code>). Print it, or save it as PDF from the browser, for a clean copy.</p></footer>
</body></html>`;
}

/** The measurement's own confidence, when the report states it ({confidence, reasons}). */
function measurement(m: unknown): string {
  if (!isObj(m)) return "";
  const reasons = list(m.reasons).map(text).filter(Boolean);
  return `<div class="confidence"><strong>Measurement confidence: ${esc(m.confidence ?? "unknown")}</strong>${reasons.length ? bulletList(reasons) : ""}</div>`;
}

function problems(report: J, more: string[]): string {
  const errors = [...list(report.errors).map(text), ...more].filter(Boolean);
  const notMeasured = list(report.not_measured).map(text).filter(Boolean);
  if (errors.length === 0 && notMeasured.length === 0) return "";
  return `${bulletList(errors)}${notMeasured.length ? `<p class="note">Not measured (values left out of the report, objects empty): ${esc(notMeasured.join(", "))}</p>` : ""}`;
}

function scanDetails(report: J, stored: reportstore.StoredReport): string {
  const meta = obj(report.meta);
  return kvTable([
    ["Job id", `<code>${esc(report.job_id || stored.jobId)}</code>`],
    ["Scanned", esc(dateTime(Number(meta.timestamp)))],
    ["Scan took", meta.scan_duration ? esc(`${meta.scan_duration}\u00a0s`) : ""],
    ["API version", esc(meta.api_version)],
    ["Creative type", esc(meta.creative_type)],
    ["Device", esc(meta.device)],
    ["Language", esc(meta.language)],
    ["Server location", esc(meta.server_location)],
    ["Browser", meta.ua ? `<span class="url">${esc(meta.ua)}</span>` : ""],
    ["CPU / RAM", esc([text(meta.cpu), text(meta.ram)].filter(Boolean).join(" / "))],
    ...Object.entries(meta)
      .filter(([k]) => !["timestamp", "scan_duration", "api_version", "creative_type", "device", "language", "server_location", "ua", "cpu", "ram"].includes(k))
      .map(([k, v]): [string, string] => [label(k), esc(byKey(k, v))]),
  ]);
}

