import type { AudioInfo, ContainerInfo, MediaFileAttributes, VastNonLinear, VastReport, VideoInfo } from "@cva/contracts";
import { mediaAccessibilityView, mediaFileAccessibilitySchema, vastMediaHasFlashes } from "./media-accessibility.ts";
import { applyNotMeasured } from "./not-measured.ts";
import {
  arr, bool, filmStripTimesSchema, filmStripTimesView, imageSchema, imageView, posterSchema, int, map, metaSchema, metaView, num, obj, orEmpty, screenshotSchema, screenshotView,
  sslSchema, sslView, str, testResultSchema, testResultView,
} from "./shared.ts";

const attributesSchema = obj(
  { bitrate: int(), delivery: str(), height: int(), maintainaspectratio: str(), scalable: str(), type: str(), width: int() },
  { description: "VAST MediaFile attributes as declared" },
);
const NOT_MEASURED = "; absent when not measured (then listed in the media file's not_measured)";
const audioSchema = obj(
  {
    bit_rate: int(`bits per second${NOT_MEASURED}`), codec: str(),
    loudness: orEmpty(
      obj({ lra: num("LU"), lufs: num("integrated loudness, LUFS") }),
      "EBU R128; {} when not measured (then file_info.audio.loudness is listed in not_measured)",
    ),
    sample_rate: int(), channels: int(), channel_layout: str(),
  },
  { optional: ["bit_rate"] },
);
const containerSchema = obj({ format: str(), mime_type: str(), moov_atom_position: str("beginning or end (MP4/MOV); empty otherwise") });
const videoSchema = obj(
  {
    aspect_ratio: str(), bit_depth: int(), bit_rate: int(`bits per second${NOT_MEASURED}`), codec: str(), definition: str(),
    dimensions: str("WIDTHxHEIGHT"), duration: num("seconds"), frame_rate: num(), height: int(),
    letterboxing: bool(`black bars in the picture${NOT_MEASURED}`), width: int(),
    profile: str(), pix_fmt: str(), bit_rate_mode: str("CBR or VBR; empty when too short to tell"), rotation: int(),
  },
  { optional: ["bit_rate", "letterboxing"] },
);
const fileInfoSchema = obj(
  {
    audio: orEmpty(audioSchema, "the audio stream; {} when the file has none or was not measured"),
    container: orEmpty(containerSchema, "{} when the file was not measured (not media, not downloaded, not probed)"),
    video: orEmpty(videoSchema, "the video stream; {} when the file has none or was not measured"),
  },
  { description: "always present; its three info objects are {} when there is nothing (file_info is then listed in not_measured when nothing was measured)" },
);
const mediafileSchema = obj(
  {
    attributes: attributesSchema,
    accessibility: mediaFileAccessibilitySchema,
    audio_wave: imageSchema,
    download_speed: num(`MB/s${NOT_MEASURED}`),
    file_info: fileInfoSchema,
    file_size: int(`bytes${NOT_MEASURED}`),
    film_strip: imageSchema,
    film_strip_times: filmStripTimesSchema,
    http_code: int(`HTTP status of the download, 0 when no answer came${NOT_MEASURED} (the file was never requested)`),
    poster: posterSchema,
    url: str(),
    error: str(
      "why the file could not be measured (download failed, not a media file, not probed) or why part of it could not " +
        "(analysis failed or timed out); empty when everything was measured",
    ),
    not_measured: arr(
      str(),
      "what of this media file was not measured: scalars listed here are absent (http_code, file_size, download_speed, " +
        "file_info.video.bit_rate, accessibility.captions, …), objects listed here are present but empty (file_info, poster, film_strip, " +
        "audio_wave, file_info.audio.loudness)",
    ),
  },
  { optional: ["http_code", "file_size", "download_speed"] },
);
const nonLinearSchema = obj(
  {
    id: str(), width: int(), height: int(),
    resource_type: str("static, iframe or html"), resource_url: str("resolved URL; empty for html"), creative_type: str(),
    click_through: obj({ url: str() }), min_suggested_duration: str("HH:MM:SS as declared"), api_framework: str(),
    http_code: int("HTTP status of the resource as loaded (0: no answer or not loaded)"), content_type: str(),
    error: str("why the overlay cannot be shown; empty when its resource loaded"),
  },
  { description: "a NonLinear overlay" },
);
const creativeSchema = obj(
  {
    type: str("linear or nonlinear"),
    ad_index: int("index into ads[] of the ad this creative belongs to"),
    click_through: obj({ url: str() }),
    duration: str("HH:MM:SS as declared (a nonlinear: its overlay's minSuggestedDuration)"),
    skip_offset: int("seconds; present only when set"),
    mediafiles: arr(mediafileSchema),
    nonlinears: arr(nonLinearSchema, "the overlays of a nonlinear creative"),
  },
  { optional: ["skip_offset"] },
);

const chainHopSchema = obj(
  {
    url: str("as written in the VAST (macros unfilled)"),
    http_code: int("HTTP status; 0 when no answer came"),
    load_time: int("milliseconds; absent when no answer came"),
    type: str("inline, wrapper, empty, invalid, vmap, vast1, or unavailable when no document was loaded"),
    vast_version: str(),
    error: str("why the chain stopped at this hop (DNS, refused, time-out, TLS, HTTP error, malformed, loop, limit, no fill); empty otherwise"),
    lint_rules: int("number of lint rules run on this document (those of its version); 0 when it was not parsed, so not linted"),
  },
  { optional: ["load_time"], description: "one document of the wrapper chain" },
);

const trackerSchema = obj(
  {
    url: str("as written in the document (macros unfilled)"),
    kind: str("tracking, click-tracking, click-through, error or verification"),
    hop: int("index into wrapper_chain of the document it is in"),
    host: str(),
    resolves: bool("the host resolved to an address the outbound policy allows and accepted a TCP connection; meaningful only when network_checked"),
    tls_valid: bool("https only: the TLS handshake succeeded (chain, name, dates); false for http and when it failed; meaningful only when network_checked"),
    non_production: str("why the host is not a production host (localhost, loopback/private/reserved address or name, staging name), from the name alone; empty otherwise"),
    insecure_on_https: bool("the URL is http: while the VAST URL is https (mixed content)"),
    macro_problems: arr(str(), "macros players do not fill or do not see: ad-server macros, non-IAB bracket macros, percent-encoded macros, stray brackets"),
    network_checked: bool("whether the host and TLS were checked over the network (no HTTP request is ever sent)"),
    error: str("what failed (DNS, refused address, connection, TLS handshake) or why the host was not checked; empty otherwise"),
  },
  { description: "one tracking, click, error or verification URL, checked without sending its request" },
);

const lintFindingSchema = obj(
  {
    rule: str("stable rule id, e.g. vast.inline.ad-system.required (the catalogue: services/vast-analyzer/LINT-RULES.md)"),
    severity: str("error (breaks a requirement of the document's VAST version), warning (works in some players only, or deprecated) or info (advice)"),
    message: str("what is wrong, naming the element, and what to do"),
    path: str("XPath of the element in the document, 1-based indexes on repeatable elements, e.g. /VAST/Ad[1]/InLine/Creatives/Creative[1]/Linear/Duration; for a missing child, the element that lacks it"),
    line: int("line of the element's start tag in the document (1-based)"),
    spec: str("the specification and section the rule comes from, e.g. VAST 4.2 §3.4.1 <AdSystem>"),
    group: str("the rule's group; scan_results test lint_<group> counts its error findings"),
    hop: int("index into wrapper_chain of the document the finding is in"),
  },
  { description: "one finding of the VAST linter (IAB VAST 2.0–4.3 and VMAP 1.0.1 rules; no XSD needed)" },
);

const verificationSchema = obj({
  vendor: str(), javascript_resource_url: str("JavaScriptResource URL as written"), api_framework: str("omid, …"),
  has_parameters: bool("<VerificationParameters> present and not empty"),
  https: bool("the JavaScriptResource URL is https"),
  checked: bool("the script was fetched (a GET of the script, as an OM SDK loads it; not a tracker); false when there is no http(s) URL, past the per-scan limit of 12 scripts or the deadline"),
  reachable: bool("the script answered 2xx with a non-empty body; meaningful only when checked"),
  http_code: int("HTTP status of the script; 0 when there was no answer"),
  content_type: str("Content-Type of the script's answer, as sent"),
  javascript_mime: bool("the Content-Type is a JavaScript MIME type (text/javascript, application/javascript, …); meaningful only when reachable"),
  problems: arr(str(), "what makes the verification unusable, in words; empty when it is usable (test om_verifications)"),
});
const simidSchema = obj(
  {
    url: str("InteractiveCreativeFile URL as written"), ad_index: int("index into ads[]"),
    run: bool("the file was run behind our SIMID 1.1 player harness in Chromium; false when it could not be (error says why) and the fields below mean nothing"),
    session_created: bool("the creative posted createSession (and the harness resolved it)"),
    session_ms: int("ms from the iframe's src to createSession; -1 when none came within session_timeout_ms"),
    init_resolved: bool("the creative resolved SIMID:Player:init"), init_rejected: bool("the creative rejected SIMID:Player:init (its errorCode in errors)"),
    init_ms: int("ms from SIMID:Player:init to its resolve or reject; -1 when neither came within init_timeout_ms or it was not sent"),
    start_resolved: bool("the creative resolved SIMID:Player:startCreative"), start_rejected: bool("the creative rejected SIMID:Player:startCreative"),
    start_ms: int("ms from SIMID:Player:startCreative to its resolve or reject; -1 when neither came within start_timeout_ms or it was not sent"),
    errors: arr(str(), "time-outs, rejects with their errorCode, SIMID:Creative:fatalError with errorCode and errorMessage, protocol violations"),
    messages: arr(obj({ type: str("as posted, e.g. SIMID:Creative:reportTracking"), at_ms: int("ms from the iframe's src"), error_code: int("fatalError / reject errorCode; 0 otherwise"), detail: str("summary of the args, ≤ 300 characters") }), "every message the creative posted, in order (at most 100)"),
    session_timeout_ms: int("the harness's time-out for createSession, ms"), init_timeout_ms: int("for the Player:init answer, ms"), start_timeout_ms: int("for the Player:startCreative answer, ms"),
    error: str("why the run was not made or could not finish; empty otherwise"),
  },
  { description: "one SIMID InteractiveCreativeFile run behind our SIMID 1.1 player harness (hidden iframe, SIMID postMessage protocol)" },
);
const companionSchema = obj({
  id: str(), width: int(), height: int(), resource_type: str("static, iframe or html"),
  resource: str("URL (static, iframe) or the first 200 characters of the markup (html)"), creative_type: str(), click_through: obj({ url: str() }),
});
const adSchema = obj(
  {
    id: str(), sequence: int("position in the pod; 0 for a stand-alone ad"), type: str("inline, wrapper or invalid"),
    ad_system: str(), ad_title: str(), ad_serving_id: str(),
    creatives: arr(int(), "indexes into creatives[] (the X of creative_X_mediafile_Y)"),
    universal_ad_ids: arr(str(), "per Linear/NonLinear creative, idRegistry:value; empty for a creative without one"),
    impressions: int(), error_urls: int("<Error> URLs of the ad and the document"),
    tracking_events: arr(str(), "events tracked for its Linear creatives (merged along the wrapper chain for the first ad)"),
    verifications: arr(verificationSchema, "AdVerifications (Open Measurement), each judged as an OM SDK would load it"),
    interactive_files: arr(obj({ url: str(), type: str(), api_framework: str("SIMID, VPAID, …") }), "InteractiveCreativeFile (SIMID)"),
    mezzanine_urls: arr(str(), "Mezzanine files (CTV / ad stitching)"),
    companions: arr(companionSchema, "CompanionAds with their resources"),
    vpaid: bool("a MediaFile or InteractiveCreativeFile with apiFramework VPAID (deprecated since VAST 4.1)"),
    error: str("why the ad is listed but not analysed (its wrapper chain failed: where and why; too many ads); empty otherwise"),
  },
  { description: "one <Ad> of the scanned document (pods by sequence, then stand-alone ads), resolved through its own wrapper chain" },
);
const schemaCheckSchema = obj(
  {
    hop: int("index into wrapper_chain"), schema: str("the IAB XSD used; empty when not validated"),
    findings: arr(obj({ line: int(), message: str() }), "what the schema rejects, with the line"),
    error: str("why the document was not validated (no schema for its version, none configured); empty otherwise"),
  },
);

export const vastScanResultsSchema = obj({
  failed: int(),
  passed: int(),
  report_url: str(),
  tests: map(map(testResultSchema(false)), "groups (xml, creative_X_mediafile_Y), each mapping test id to a result"),
});

export const vastV3Schema = obj(
  {
    ad_system: str(),
    ad_title: str(),
    cors: bool(`CORS headers as VAST requires${NOT_MEASURED.replace("media file", "report")}`),
    creatives: arr(creativeSchema),
    job_id: str(),
    meta: metaSchema,
    name: str(),
    pixels: obj({ impression: arr(str(), "impression pixel URLs that were fired") }),
    scan_results: vastScanResultsSchema,
    screenshot: screenshotSchema,
    ssl: sslSchema("non_secure_urls"),
    type: str("VAST document type, e.g. inline"),
    errors: arr(str(), "problems found while fetching and analysing: why the type is invalid or empty, why a chain stopped, why a creative has nothing to play"),
    vast_url_base64: str(),
    vast_version: str(),
    wrapper_redirects: int(),
    wrapper_chain: arr(chainHopSchema, "every document fetched or attempted along the wrapper chain, the VAST URL first"),
    ads: arr(adSchema, "every <Ad> of the scanned document (pods by sequence, then stand-alone ads), each resolved to what it plays"),
    schema_checks: arr(schemaCheckSchema, "each document of the chain validated against the IAB XSD of its version; empty when the operator gave no schemas (VAST_XSD_DIR)"),
    unexpanded_macros: arr(str(), "URLs carrying a macro no player fills (%%…%%, ${…}, {{…}}, bracket macros outside the IAB list)"),
    simid: arr(simidSchema, "each SIMID InteractiveCreativeFile of the analysed ads run in Chromium behind our SIMID 1.1 player harness: createSession → Player:init → Player:startCreative"),
    trackers: arr(trackerSchema, "every tracking, click, error and verification URL of the chain's documents, checked without side effects (impressions are fired, media probed)"),
    lint: arr(lintFindingSchema, "what the VAST linter found in each document of the chain, in hop and rule order (at most 500 per document, 20 per rule)"),
    xml: obj(
      { content_type: str(), data_base64: str(), file_size: int(), http_code: int("0 when no answer came"), load_time: int(`milliseconds${NOT_MEASURED.replace("media file", "report")}`) },
      { optional: ["load_time"] },
    ),
    not_measured: arr(str(), "report fields that were not measured and are therefore absent (cors, xml.load_time when the VAST URL gave no answer)"),
  },
  { description: "VAST report, v3", optional: ["cors"] },
);

const attributesView = (a: MediaFileAttributes | undefined) => ({
  bitrate: a?.bitrate ?? 0, delivery: a?.delivery ?? "", height: a?.height ?? 0,
  maintainaspectratio: a?.maintainaspectratio ?? "", scalable: a?.scalable ?? "", type: a?.type ?? "", width: a?.width ?? 0,
});
// Loudness is {} unless measured: an unset message is never shown as {0, 0}.
const audioView = (a: AudioInfo) => ({
  bit_rate: Number(a.bitRate), codec: a.codec,
  loudness: a.loudness ? { lra: a.loudness.lra, lufs: a.loudness.lufs } : {},
  sample_rate: a.sampleRate, channels: a.channels, channel_layout: a.channelLayout,
});
const nonLinearView = (n: VastNonLinear) => ({
  id: n.id, width: n.width, height: n.height, resource_type: n.resourceType, resource_url: n.resourceUrl,
  creative_type: n.creativeType, click_through: { url: n.clickThroughUrl }, min_suggested_duration: n.minSuggestedDuration,
  api_framework: n.apiFramework, http_code: n.httpCode, content_type: n.contentType, error: n.error,
});
const containerView = (c: ContainerInfo) => ({ format: c.format, mime_type: c.mimeType, moov_atom_position: c.moovAtomPosition });
const videoView = (v: VideoInfo) => ({
  aspect_ratio: v.aspectRatio, bit_depth: v.bitDepth, bit_rate: Number(v.bitRate), codec: v.codec, definition: v.definition,
  dimensions: v.dimensions, duration: v.duration, frame_rate: v.frameRate, height: v.height, letterboxing: v.letterboxing,
  width: v.width, profile: v.profile, pix_fmt: v.pixFmt, bit_rate_mode: v.bitRateMode, rotation: v.rotation,
});

export function vastV3View(r: VastReport) {
  const tests: Record<string, Record<string, ReturnType<typeof testResultView>>> = {};
  for (const t of r.scanResults?.tests ?? []) {
    // Document-level tests without a group belong to the xml group.
    const group = t.group || "xml";
    (tests[group] ??= {})[t.test] = testResultView(t, false);
  }
  const doc = {
    ad_system: r.adSystem,
    ad_title: r.adTitle,
    cors: r.cors,
    creatives: r.creatives.map((c) => ({
      // Producers before NonLinear support only reported Linear creatives.
      type: c.type || "linear",
      ad_index: c.adIndex,
      click_through: { url: c.clickThroughUrl },
      duration: c.duration,
      ...(c.skipOffset !== undefined ? { skip_offset: c.skipOffset } : {}),
      mediafiles: c.mediafiles.map((m) => {
        const p = m.probe;
        const fi = p?.fileInfo;
        const notMeasured = [...(p?.notMeasured ?? [])];
        // Every key present (images and info objects may be empty); unmeasured scalars then removed.
        const doc = {
          attributes: attributesView(m.attributes),
          accessibility: mediaAccessibilityView(p?.accessibility, { flashes: vastMediaHasFlashes(p?.accessibility, notMeasured), notMeasured }),
          audio_wave: imageView(p?.audioWave),
          download_speed: p?.downloadSpeed ?? 0,
          file_info: {
            audio: fi?.audio ? audioView(fi.audio) : {},
            container: fi?.container ? containerView(fi.container) : {},
            video: fi?.video ? videoView(fi.video) : {},
          },
          file_size: Number(p?.fileSize ?? 0),
          film_strip: imageView(p?.filmStrip),
          film_strip_times: filmStripTimesView(p?.filmStripTimesMs),
          http_code: p?.httpCode ?? 0,
          poster: imageView(p?.poster),
          url: p?.url || "",
          error: p?.error || p?.analysisError || "",
          not_measured: notMeasured,
        };
        applyNotMeasured(doc, notMeasured);
        return doc;
      }),
      nonlinears: c.nonLinears.map(nonLinearView),
    })),
    job_id: r.jobId,
    meta: metaView(r.meta, "vast", "v3"),
    name: r.name,
    pixels: { impression: [...r.impressionPixels] },
    scan_results: {
      failed: r.scanResults?.failed ?? 0,
      passed: r.scanResults?.passed ?? 0,
      report_url: r.scanResults?.reportUrl ?? "",
      tests,
    },
    screenshot: screenshotView(r.screenshot),
    ssl: sslView(r.ssl, "non_secure_urls"),
    type: r.type,
    errors: [...r.errors],
    vast_url_base64: Buffer.from(r.vastUrl, "utf8").toString("base64"),
    vast_version: r.vastVersion,
    wrapper_redirects: r.wrapperRedirects,
    wrapper_chain: r.wrapperChain.map((h) => ({
      url: h.url,
      http_code: h.httpCode,
      // No answer, no load to time: left out rather than shown as 0 ms.
      ...(h.httpCode !== 0 ? { load_time: Number(h.loadTimeMs) } : {}),
      type: h.type,
      vast_version: h.vastVersion,
      error: h.error,
      lint_rules: h.lintRules,
    })),
    ads: r.ads.map((a) => ({
      id: a.id, sequence: a.sequence, type: a.type, ad_system: a.adSystem, ad_title: a.adTitle, ad_serving_id: a.adServingId,
      creatives: [...a.creativeIndexes], universal_ad_ids: [...a.universalAdIds], impressions: a.impressions, error_urls: a.errorUrls,
      tracking_events: [...a.trackingEvents],
      verifications: a.verifications.map((v) => ({
        vendor: v.vendor, javascript_resource_url: v.javascriptResourceUrl, api_framework: v.apiFramework, has_parameters: v.hasParameters, https: v.https,
        checked: v.checked, reachable: v.reachable, http_code: v.httpCode, content_type: v.contentType, javascript_mime: v.javascriptMime, problems: [...v.problems],
      })),
      interactive_files: a.interactiveFiles.map((f) => ({ url: f.url, type: f.type, api_framework: f.apiFramework })),
      mezzanine_urls: [...a.mezzanineUrls],
      companions: a.companions.map((c) => ({
        id: c.id, width: c.width, height: c.height, resource_type: c.resourceType, resource: c.resource, creative_type: c.creativeType,
        click_through: { url: c.clickThroughUrl },
      })),
      vpaid: a.vpaid,
      error: a.error,
    })),
    schema_checks: r.schemaChecks.map((c) => ({ hop: c.hop, schema: c.schema, findings: c.findings.map((f) => ({ line: f.line, message: f.message })), error: c.error })),
    unexpanded_macros: [...r.unexpandedMacros],
    trackers: r.trackers.map((t) => ({
      url: t.url, kind: t.kind, hop: t.hop, host: t.host, resolves: t.resolves, tls_valid: t.tlsValid, non_production: t.nonProduction,
      insecure_on_https: t.insecureOnHttps, macro_problems: [...t.macroProblems], network_checked: t.networkChecked, error: t.error,
    })),
    simid: r.simid.map((x) => ({
      url: x.url, ad_index: x.adIndex, run: x.run, session_created: x.sessionCreated, session_ms: x.sessionMs, init_resolved: x.initResolved, init_rejected: x.initRejected,
      init_ms: x.initMs, start_resolved: x.startResolved, start_rejected: x.startRejected, start_ms: x.startMs, errors: [...x.errors],
      messages: x.messages.map((m) => ({ type: m.type, at_ms: m.atMs, error_code: m.errorCode, detail: m.detail })),
      session_timeout_ms: x.sessionTimeoutMs, init_timeout_ms: x.initTimeoutMs, start_timeout_ms: x.startTimeoutMs, error: x.error,
    })),
    lint: r.lint.map((f) => ({ rule: f.rule, severity: f.severity, message: f.message, path: f.path, line: f.line, spec: f.spec, group: f.group, hop: f.hop })),
    xml: {
      content_type: r.xml?.contentType ?? "",
      data_base64: Buffer.from(r.xml?.data ?? new Uint8Array()).toString("base64"),
      file_size: Number(r.xml?.fileSize ?? 0),
      http_code: r.xml?.httpCode ?? 0,
      load_time: Number(r.xml?.loadTimeMs ?? 0),
    },
    not_measured: [...r.notMeasured],
  };
  applyNotMeasured(doc, r.notMeasured);
  return doc;
}
