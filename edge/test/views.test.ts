import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { MediaProbeSchema, ScanResultsSchema, TestOutcome, TagReportSchema, VastCreativeSchema, VastMediaFileSchema, VastReportSchema, ZipReportSchema } from "@cva/contracts";
import { fillImageUrls } from "../src/scan/images.ts";
import { renderTagV2, renderTagV3, renderVastV3, renderZipV2, renderZipV3, tagV2Schema, tagV3Schema, vastV3Schema, zipV2Schema, zipV3Schema } from "../src/views/index.ts";
import { fullTagReport, fullVastReport, fullZipReport } from "./fakes.ts";
import { EMPTY_IMAGE, MEDIA_NOT_MEASURED_FIELDS, VAST_NOT_MEASURED_FIELDS } from "../src/views/not-measured.ts";

const ajv = new Ajv2020({ strict: false, allErrors: true });
function check(schema: object, doc: unknown) {
  const validate = ajv.compile(schema);
  const ok = validate(doc);
  expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
  expect(ok).toBe(true);
}
const withUrls = <T>(r: T): T => {
  fillImageUrls(r, (id) => `https://edge.test/artifacts/${id}`);
  return r;
};

const TAG_V2_KEYS = [
  "3pas", "blocked_by_adblock", "console", "cookies", "cpu_usage", "creative_rendered", "dialogs", "dimensions",
  "dom_content_loaded", "has_border", "has_video", "iframes", "job_id", "local_storage", "memory_usage", "meta",
  "missing_assets", "mobile_friendly", "network", "screenshot", "ssl", "uses_document_write", "visual_artifacts",
];
const V3_ONLY = ["accessibility", "animation_duration", "cpu", "heavy_ad", "landing_page", "measurement", "name", "privacy", "scan_results", "time_to_visual_start"];

describe("views", () => {
  it("tag v3: every documented field, exact names, schema-valid", () => {
    const r = withUrls(fullTagReport());
    r.name = "Spring";
    r.scanResults!.reportUrl = "https://edge.test/r/tok";
    const doc = JSON.parse(renderTagV3(r));
    check(tagV3Schema, doc);
    expect(Object.keys(doc).sort()).toEqual([...TAG_V2_KEYS.filter((k) => k !== "visual_artifacts"), ...V3_ONLY, "film_strip", "click_point"].sort());
    expect(doc["3pas"]).toBe("Google Campaign Manager");
    expect(doc.cookies[0]).toMatchObject({ httpOnly: true, sameSite: "None", expires: 1767225600.5 });
    expect("sameSite" in doc.cookies[1]).toBe(false);
    expect(doc.network.responses[0].ssl_info).toEqual({ protocol: "TLS 1.3", validFrom: 1700000000, validTo: 1800000000 });
    expect(doc.network.responses[0].timing).toBe(35);
    expect(doc.network.responses[0].headers).toEqual({ "content-type": "text/html" });
    expect(doc.dimensions).toEqual({ height: 250, width: 300, text: "300x250" });
    expect(doc.meta).toMatchObject({ scan_duration: "2.41", creative_type: "ad_tag", api_version: "v3", timestamp: 1763726400 });
    expect(doc.memory_usage).toBe(1048576);
    expect(doc.heavy_ad).toEqual({ checked: true, intervened: false, reason: "", watched_ms: 1200, detail: expect.stringContaining("Chrome did not intervene") });
    expect(doc.ssl).toEqual({ compliant: false, insecure_urls: ["http://pixel.example/p.gif"] });
    expect(doc.screenshot.highres).toEqual({ bytes: 4, color: "#ff0000", mime_type: "image/png", url: "https://edge.test/artifacts/shot1" });
    expect(doc.landing_page.screenshot.url).toBe("https://edge.test/artifacts/lp1");
    expect(doc.dialogs).toEqual([{ type: "alert", message: "hi" }]);
    expect(doc.local_storage).toEqual([{ key: "k", value: "v" }]);
    expect(doc.missing_assets[0]).toEqual({ url: "https://cdn.example.com/x.png", status: 404, resource_type: "image", reason: "HTTP 404" });
    expect(doc.scan_results.report_url).toBe("https://edge.test/r/tok");
    expect(doc.scan_results.tests.initial_load_size).toEqual({
      test: "initial_load_size", name: "Initial load size", data_type: "int", unit: "KB", expected: 150,
      expected_text: "< 150 KB", actual: 2, operator: "<", result: "passed", message: "",
    });
    expect(doc.scan_results.tests.dimensions_width).toMatchObject({ expected: "1#300", result: "failed", message: "Width: 301 px, but expected between 1 and 300" });
    // An error says why it could not be evaluated.
    expect(doc.scan_results.tests.cpu).toMatchObject({ result: "error", message: "no data" });
    // ... and carries no value: nothing was measured.
    expect(doc.scan_results.tests.cpu).not.toHaveProperty("actual");
    expect(doc.time_to_visual_start).toBe(250);
    expect(doc.animation_duration).toBe(1500);
    expect(doc.measurement).toEqual({
      confidence: "low", reasons: ["the renderer was kept from the CPU for 1.4 s while the creative rendered"], low_confidence_fields: ["animation_duration"],
    });
    expect(doc.name).toBe("Spring");
    // v3 only: the vendor of each response ({} when unknown) and the consent states' privacy summary.
    expect(doc.network.responses.map((x: { vendor: unknown }) => x.vendor)).toEqual([{}, { name: "Pixel Co", category: "measurement", gvl_id: 77 }]);
    expect(doc.privacy.states[1]).toEqual({
      state: "tcf_denied", cookies: [{ name: "uid", domain: "example.com" }], storage_keys: [], third_party_domains: ["pixel.example"],
      requests: 2, pixels: 1, signal: "TCF v2.2 TC string CQ…", error: "", watched_ms: 1600,
      derived_from: "", derived_reason: "", rendered_because: "the creative looked for __tcfapi",
    });
    // A state not rendered says it is no_cmp's, and why.
    expect(doc.privacy.states[2]).toMatchObject({ state: "gpp_us_opt_out", derived_from: "no_cmp", derived_reason: "not rendered: the creative looked for none of this state's consent signals", rendered_because: "" });
    expect(doc.privacy.consent_signals).toEqual(["__tcfapi"]);
    expect(doc.privacy.consent_macros[0]).toEqual({
      macro: "${GDPR_CONSENT_755}", host: "pixel.example", found_in: "markup", filled: true, vendor_id: 755,
      host_vendor: { name: "Pixel Co", category: "measurement", gvl_id: 77 }, vendor_matches: false,
    });
    expect(doc.privacy).toMatchObject({ reads_consent: true, allowed_domains: ["example.com"], unapproved_domains: ["pixel.example"] });
    expect(doc.privacy.violations).toEqual([{ state: "tcf_denied", kind: "cookie", what: "uid", domain: "example.com" }]);
  });

  it("tag v2: no v3-only fields, plus visual_artifacts", () => {
    const doc = JSON.parse(renderTagV2(withUrls(fullTagReport())));
    check(tagV2Schema, doc);
    expect(Object.keys(doc).sort()).toEqual([...TAG_V2_KEYS].sort());
    for (const k of V3_ONLY) expect(doc).not.toHaveProperty(k);
    expect(doc.network.responses[1]).not.toHaveProperty("vendor");
    expect(doc.visual_artifacts).toBe(true);
    expect(doc.meta.api_version).toBe("v2");
  });

  it("zip v2: the v2 tag fields plus the zip fields; creative_type zip", () => {
    const doc = JSON.parse(renderZipV2(withUrls(fullZipReport())));
    check(zipV2Schema, doc);
    expect(Object.keys(doc).sort()).toEqual(
      [...TAG_V2_KEYS, "click_tag_found", "file_structure", "has_external_assets", "html5_library", "meta_ad_size", "minified", "not_measured", "errors"].sort(),
    );
    expect(doc.meta.creative_type).toBe("zip");
    expect(doc.file_structure[0]).toEqual({ bytes: 1200, name: "index.html", type: "html" });
    expect(doc).toMatchObject({ click_tag_found: true, has_external_assets: false, html5_library: "GSAP", meta_ad_size: true, minified: false, not_measured: [], errors: [] });
  });

  it("zip v3: the v2 zip fields plus the v3 tag additions, has_backup_ad and the zip's own v3 fields", () => {
    const r = withUrls(fullZipReport());
    r.render!.name = "Banner";
    r.scanResults = create(ScanResultsSchema, {
      passed: 1, failed: 1, reportUrl: "https://edge.test/r/z",
      tests: [
        { test: "backup_ad", name: "Backup Ad", dataType: "bool", operator: "==", expected: { case: "expectedNumber", value: 1 }, actual: 1, result: TestOutcome.PASSED, message: "Backup Ad: yes" },
        { test: "image_optimization", name: "Image Optimization", dataType: "int", unit: "count", operator: "==", expected: { case: "expectedNumber", value: 0 }, actual: 1, result: TestOutcome.FAILED, message: "img/a.png (−40 %)" },
      ],
    });
    const doc = JSON.parse(renderZipV3(r));
    check(zipV3Schema, doc);
    expect(Object.keys(doc).sort()).toEqual(
      [...TAG_V2_KEYS, "click_tag_found", "file_structure", "has_external_assets", "html5_library", "meta_ad_size", "minified", "not_measured", "errors",
        ...V3_ONLY, "film_strip", "click_point", "has_backup_ad", "backup_ad", "click_tag_used", "external_assets", "zip_size", "unzipped_size", "images"].sort(),
    );
    expect(doc.meta).toMatchObject({ creative_type: "zip", api_version: "v3" });
    expect(doc).toMatchObject({ name: "Banner", has_backup_ad: true, backup_ad: "backup.jpg", click_tag_used: true, zip_size: 4100, unzipped_size: 6200, animation_duration: 1500, time_to_visual_start: 250 });
    expect(doc.measurement).toMatchObject({ confidence: "low", low_confidence_fields: ["animation_duration"] });
    expect(doc.landing_page.screenshot.url).toBe("https://edge.test/artifacts/lp1");
    expect(doc.images).toEqual([
      { name: "img/a.png", bytes: 5000, reencoded_bytes: 3000, width: 300, height: 250, error: "" },
      { name: "img/huge.jpg", bytes: 9000, width: 5000, height: 5000, error: "not checked: larger than 4000000 pixels" },
    ]);
    expect(doc.scan_results).toMatchObject({ passed: 1, failed: 1, report_url: "https://edge.test/r/z" });
    expect(doc.scan_results.tests.image_optimization).toMatchObject({ test: "image_optimization", result: "failed", actual: 1 });
    // Without a click-through: every key still there.
    r.render!.landingPage = undefined;
    const bare = JSON.parse(renderZipV3(r));
    check(zipV3Schema, bare);
    expect(bare.landing_page).toEqual({ screenshot: EMPTY_IMAGE, tab: "none", title: "", url: "", working: false });
  });

  it("zip v2: a field that was not measured is left out and listed with why", () => {
    const r = withUrls(fullZipReport());
    r.notMeasured = ["minified"];
    r.errors = ["minified not measured: 1 file not checked: big.js (minification check timed out)"];
    const doc = JSON.parse(renderZipV2(r));
    check(zipV2Schema, doc);
    expect(doc).not.toHaveProperty("minified");
    expect(doc.not_measured).toEqual(["minified"]);
    expect(doc.errors).toEqual(["minified not measured: 1 file not checked: big.js (minification check timed out)"]);
  });

  it("vast v3: non_secure_urls, xml.data_base64, grouped tests, mediafile shapes", () => {
    const r = withUrls(fullVastReport());
    r.name = "Video";
    const doc = JSON.parse(renderVastV3(r));
    check(vastV3Schema, doc);
    expect(Object.keys(doc).sort()).toEqual(
      ["ad_system", "ad_title", "cors", "creatives", "errors", "job_id", "meta", "name", "not_measured", "pixels", "scan_results", "screenshot", "ssl", "type",
        "vast_url_base64", "vast_version", "wrapper_chain", "wrapper_redirects", "xml", "ads", "schema_checks", "unexpanded_macros", "lint", "trackers", "simid"].sort(),
    );
    expect(doc.ssl).toEqual({ compliant: false, non_secure_urls: ["http://x.example/a.mp4"] });
    expect(doc.xml).toEqual({ content_type: "application/xml", data_base64: Buffer.from("<VAST/>").toString("base64"), file_size: 7, http_code: 200, load_time: 80 });
    expect(Buffer.from(doc.vast_url_base64, "base64").toString()).toBe("https://ads.example.com/vast.xml");
    expect(doc.pixels).toEqual({ impression: ["https://px.example/imp"] });
    expect(doc.meta.creative_type).toBe("vast");
    const [c0, c1] = doc.creatives;
    expect(c0.click_through).toEqual({ url: "https://example.com/click" });
    expect(c0.skip_offset).toBe(5);
    expect("skip_offset" in c1).toBe(false);
    const mf = c0.mediafiles[0];
    expect(mf.attributes).toEqual({ bitrate: 2000, delivery: "progressive", height: 720, maintainaspectratio: "true", scalable: "true", type: "video/mp4", width: 1280 });
    expect(mf.file_info.audio).toMatchObject({ bit_rate: 128000, codec: "aac", loudness: { lra: 4.2, lufs: -23.1 }, sample_rate: 48000 });
    expect(mf.file_info.container).toEqual({ format: "mov,mp4", mime_type: "video/mp4", moov_atom_position: "beginning" });
    expect(mf.file_info.video).toMatchObject({ dimensions: "1280x720", letterboxing: false, frame_rate: 25 });
    expect(mf.poster.url).toBe("https://edge.test/artifacts/poster1");
    expect(mf.film_strip.url).toBe("https://edge.test/artifacts/film1");
    expect(mf.audio_wave.url).toBe("https://edge.test/artifacts/wave1");
    expect(mf).toMatchObject({ download_speed: 12.5, file_size: 5000000, http_code: 200, url: "https://cdn.example.com/v.mp4", error: "", not_measured: [] });
    expect(c0.type).toBe("linear");
    expect(c0.nonlinears).toEqual([]);
    expect(doc.errors).toEqual(["creative 1 (Linear) has no MediaFile: a player has nothing to play"]);
    expect(doc.scan_results.tests.xml.vast_version).toMatchObject({ expected: "2.0#4.1", result: "passed" });
    expect(doc.scan_results.tests.xml.vast_version).not.toHaveProperty("test");
    expect(doc.scan_results.tests.creative_0_mediafile_0.bitrate.actual).toBe(1900);
  });

  it("vast v3: lint findings and each hop's lint_rules, field by field", () => {
    const r = create(VastReportSchema, {
      wrapperChain: [
        { url: "https://ads.example.com/w.xml", httpCode: 200, loadTimeMs: 40n, type: "wrapper", vastVersion: "4.2", lintRules: 240 },
        { url: "https://ads.example.com/i.xml", httpCode: 200, loadTimeMs: 50n, type: "inline", vastVersion: "4.1", lintRules: 236 },
      ],
      lint: [{
        rule: "vast.inline.ad-serving-id.required", severity: "error", group: "conditional_requirements", hop: 1, line: 4,
        path: "/VAST/Ad[1]/InLine", spec: "VAST 4.2 §3.4.4 <AdServingId>; vast_4.1.xsd, vast_4.2.xsd",
        message: "<InLine> has no <AdServingId>: VAST 4.1 requires it; add the ad server's id of this serving (it ties impressions to the auction)",
      }],
    });
    const doc = JSON.parse(renderVastV3(r));
    check(vastV3Schema, doc);
    expect(doc.wrapper_chain.map((h: { lint_rules: number }) => h.lint_rules)).toEqual([240, 236]);
    expect(doc.lint).toEqual([{
      rule: "vast.inline.ad-serving-id.required", severity: "error", group: "conditional_requirements", hop: 1, line: 4,
      path: "/VAST/Ad[1]/InLine", spec: "VAST 4.2 §3.4.4 <AdServingId>; vast_4.1.xsd, vast_4.2.xsd",
      message: "<InLine> has no <AdServingId>: VAST 4.1 requires it; add the ad server's id of this serving (it ties impressions to the auction)",
    }]);
  });

  it("vast v3: tracker checks, field by field", () => {
    const r = create(VastReportSchema, {
      trackers: [{
        url: "https://staging.ads.example/err?c=[ERRORCODE]", kind: "error", hop: 0, host: "staging.ads.example", resolves: false, tlsValid: false,
        nonProduction: "a staging or test host", insecureOnHttps: false, macroProblems: ["%%CB%% is not filled by players"], networkChecked: true,
        error: "could not resolve host staging.ads.example (ENOTFOUND)",
      }],
    });
    const doc = JSON.parse(renderVastV3(r));
    check(vastV3Schema, doc);
    expect(doc.trackers).toEqual([{
      url: "https://staging.ads.example/err?c=[ERRORCODE]", kind: "error", hop: 0, host: "staging.ads.example", resolves: false, tls_valid: false,
      non_production: "a staging or test host", insecure_on_https: false, macro_problems: ["%%CB%% is not filled by players"], network_checked: true,
      error: "could not resolve host staging.ads.example (ENOTFOUND)",
    }]);
  });

  it("vast v3: OM verifications and SIMID runs, field by field", () => {
    const r = create(VastReportSchema, {
      ads: [{
        verifications: [{
          vendor: "v.example-omid", javascriptResourceUrl: "http://v.example/omid.js", apiFramework: "omid", hasParameters: false, https: false,
          checked: true, reachable: true, httpCode: 200, contentType: "text/html", javascriptMime: false, problems: ["not https", "no VerificationParameters"],
        }],
      }],
      simid: [{
        url: "https://c.example/simid.html", adIndex: 0, run: true, sessionCreated: true, sessionMs: 120, initResolved: false, initRejected: false, initMs: -1,
        startResolved: false, startRejected: false, startMs: -1, errors: ["no answer to SIMID:Player:init within 2 s"],
        messages: [{ type: "createSession", atMs: 120, errorCode: 0, detail: "" }], sessionTimeoutMs: 5000, initTimeoutMs: 2000, startTimeoutMs: 2000, error: "",
      }],
    });
    const doc = JSON.parse(renderVastV3(r));
    check(vastV3Schema, doc);
    expect(doc.ads[0].verifications).toEqual([{
      vendor: "v.example-omid", javascript_resource_url: "http://v.example/omid.js", api_framework: "omid", has_parameters: false, https: false,
      checked: true, reachable: true, http_code: 200, content_type: "text/html", javascript_mime: false, problems: ["not https", "no VerificationParameters"],
    }]);
    expect(doc.simid).toEqual([{
      url: "https://c.example/simid.html", ad_index: 0, run: true, session_created: true, session_ms: 120, init_resolved: false, init_rejected: false, init_ms: -1,
      start_resolved: false, start_rejected: false, start_ms: -1, errors: ["no answer to SIMID:Player:init within 2 s"],
      messages: [{ type: "createSession", at_ms: 120, error_code: 0, detail: "" }], session_timeout_ms: 5000, init_timeout_ms: 2000, start_timeout_ms: 2000, error: "",
    }]);
  });

  it("vast v3: a value that was not measured is absent and listed, never a placeholder; reasons reach the JSON", () => {
    const r = withUrls(fullVastReport());
    const p = r.creatives[0]!.mediafiles[0]!.probe!;
    // What the media prober sends after an ffmpeg time-out: placeholders plus the list of what they stand for.
    p.fileInfo!.audio!.loudness = undefined;
    p.fileInfo!.video!.letterboxing = false;
    p.audioWave = undefined;
    p.analysisError = "media analysis timed out after 60 s";
    p.notMeasured = ["file_info.audio.loudness", "file_info.video.letterboxing", "audio_wave"];
    r.creatives[1]!.mediafiles.push(create(VastMediaFileSchema, {
      attributes: { type: "application/x-mpegURL" },
      probe: { url: "https://cdn.example.com/v.m3u8", httpCode: 200, fileSize: 300n, error: "not a media file: HLS playlist (not followed)" },
    }));
    r.creatives.push(create(VastCreativeSchema, {
      type: "nonlinear", duration: "00:00:05",
      nonLinears: [{ id: "o", width: 480, height: 70, resourceType: "static", resourceUrl: "https://cdn.example.com/o.png", creativeType: "image/png", httpCode: 404, error: "the resource answered HTTP 404" }],
    }));
    r.creatives[1]!.mediafiles.push(create(VastMediaFileSchema, {
      probe: {
        url: "https://cdn.example.com/never.mp4", error: "not probed: no media worker answered", notProbed: true,
        notMeasured: ["http_code", "file_size", "download_speed", "file_info", "poster", "film_strip", "audio_wave"],
      },
    }));
    const doc = JSON.parse(renderVastV3(r));
    check(vastV3Schema, doc);
    // A file that was never downloaded: every object key present and empty, the unmeasured scalars absent and listed.
    const never = doc.creatives[1].mediafiles[1];
    expect(never).toEqual({
      accessibility: {}, attributes: { bitrate: 0, delivery: "", height: 0, maintainaspectratio: "", scalable: "", type: "", width: 0 },
      audio_wave: EMPTY_IMAGE, file_info: { audio: {}, container: {}, video: {} }, film_strip: EMPTY_IMAGE, film_strip_times: [], poster: EMPTY_IMAGE,
      url: "https://cdn.example.com/never.mp4", error: "not probed: no media worker answered",
      not_measured: ["http_code", "file_size", "download_speed", "file_info", "poster", "film_strip", "audio_wave"],
    });
    const mf = doc.creatives[0].mediafiles[0];
    // Not measured: an object stays as {}, a scalar goes; both are listed.
    expect(mf.file_info.audio.loudness).toEqual({});
    expect(mf.file_info.video).not.toHaveProperty("letterboxing");
    expect(mf.audio_wave).toEqual(EMPTY_IMAGE);
    expect(mf.file_info.audio.codec).toBe("aac");
    expect(mf.error).toBe("media analysis timed out after 60 s");
    expect(mf.not_measured).toEqual(["file_info.audio.loudness", "file_info.video.letterboxing", "audio_wave"]);
    const hls = doc.creatives[1].mediafiles[0];
    expect(hls).toMatchObject({
      error: "not a media file: HLS playlist (not followed)", http_code: 200, file_info: { audio: {}, container: {}, video: {} },
      poster: EMPTY_IMAGE, film_strip: EMPTY_IMAGE, audio_wave: EMPTY_IMAGE,
    });
    expect(doc.creatives[2]).toMatchObject({ type: "nonlinear", mediafiles: [], duration: "00:00:05" });
    expect(doc.creatives[2].nonlinears[0]).toEqual({
      id: "o", width: 480, height: 70, resource_type: "static", resource_url: "https://cdn.example.com/o.png", creative_type: "image/png",
      click_through: { url: "" }, min_suggested_duration: "", api_framework: "", http_code: 404, content_type: "", error: "the resource answered HTTP 404",
    });
  });

  it("vast v3: a VAST URL that gave no answer has no cors and no load time, and says so", () => {
    const r = create(VastReportSchema, {
      type: "unavailable", cors: false, notMeasured: ["cors", "xml.load_time"], xml: { httpCode: 0 },
      errors: ["VAST document http://x.test/v.xml could not be fetched: connection refused"],
    });
    const doc = JSON.parse(renderVastV3(r));
    check(vastV3Schema, doc);
    expect(doc).not.toHaveProperty("cors");
    expect(doc.xml).not.toHaveProperty("load_time");
    expect(doc.xml.http_code).toBe(0);
    expect(doc.not_measured).toEqual(["cors", "xml.load_time"]);
    expect(doc.errors).toEqual(["VAST document http://x.test/v.xml could not be fetched: connection refused"]);
  });

  it("a field that may be listed as not measured: a scalar is optional in the schema (left out), an object required (emptied)", () => {
    const schema = vastV3Schema as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    const props = (node: any) => node.properties ?? node.anyOf[0].properties; // eslint-disable-line @typescript-eslint/no-explicit-any
    const required = (node: any): string[] => node.required ?? node.anyOf[0].required; // eslint-disable-line @typescript-eslint/no-explicit-any
    const mediafile = schema.properties.creatives.items.properties.mediafiles.items;
    const cases: Array<[any, Record<string, string>]> = [[mediafile, MEDIA_NOT_MEASURED_FIELDS], [schema, VAST_NOT_MEASURED_FIELDS]]; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const [root, fields] of cases) {
      for (const [path, form] of Object.entries(fields)) {
        const keys = path.split(".");
        let node = root;
        for (const k of keys.slice(0, -1)) node = props(node)[k];
        expect(props(node)[keys.at(-1)!], path).toBeDefined();
        if (form === "absent") expect(required(node), path).not.toContain(keys.at(-1));
        else expect(required(node), path).toContain(keys.at(-1));
      }
    }
  });

  it("every object key of every report is required in its schema (present in every report)", () => {
    // Walks the schemas: a property whose schema is an object (or an object-or-empty union) must be required,
    // except the two the spec documents as conditional.
    const conditional = new Set(["skip_offset"]);
    const walk = (node: any, where: string) => { // eslint-disable-line @typescript-eslint/no-explicit-any
      if (!node || typeof node !== "object") return;
      if (node.anyOf) return node.anyOf.forEach((n: unknown) => walk(n, where));
      if (node.type === "array") return walk(node.items, `${where}[]`);
      if (node.type !== "object" || !node.properties) return walk(node.additionalProperties, `${where}{}`);
      for (const [k, v] of Object.entries(node.properties as Record<string, any>)) { // eslint-disable-line @typescript-eslint/no-explicit-any
        const isObject = v.type === "object" || v.anyOf !== undefined || v.type === "array";
        if (isObject && !conditional.has(k)) expect(node.required, `${where}.${k}`).toContain(k);
        walk(v, `${where}.${k}`);
      }
    };
    for (const [name, schema] of Object.entries({ tagV3Schema, tagV2Schema, zipV2Schema, zipV3Schema, vastV3Schema })) walk(schema, name);
  });

  it("report shape: a v3 tag without a click-through and a VAST media file that failed to download keep every key", () => {
    const tag = fullTagReport();
    tag.landingPage = undefined;
    tag.network!.responses[0]!.sslInfo = undefined;
    const doc = JSON.parse(renderTagV3(tag));
    check(tagV3Schema, doc);
    expect(doc.landing_page).toEqual({ screenshot: EMPTY_IMAGE, tab: "none", title: "", url: "", working: false });
    expect(doc.network.responses[0].ssl_info).toEqual({});
    const vast = fullVastReport();
    vast.creatives[0]!.mediafiles[0]!.probe = create(MediaProbeSchema, {
      url: "https://cdn.example.com/gone.mp4", httpCode: 404, fileSize: 9n, error: "the media file answered HTTP 404",
    });
    const v = JSON.parse(renderVastV3(vast));
    check(vastV3Schema, v);
    expect(v.creatives[0].mediafiles[0]).toEqual({
      accessibility: {}, attributes: expect.any(Object), audio_wave: EMPTY_IMAGE, download_speed: 0, file_info: { audio: {}, container: {}, video: {} },
      file_size: 9, film_strip: EMPTY_IMAGE, film_strip_times: [], http_code: 404, poster: EMPTY_IMAGE, url: "https://cdn.example.com/gone.mp4",
      error: "the media file answered HTTP 404", not_measured: [],
    });
  });

  it("empty internal reports still produce schema-valid documents", () => {
    check(tagV3Schema, JSON.parse(renderTagV3(create(TagReportSchema))));
    check(tagV2Schema, JSON.parse(renderTagV2(create(TagReportSchema))));
    check(zipV2Schema, JSON.parse(renderZipV2(create(ZipReportSchema))));
    check(zipV3Schema, JSON.parse(renderZipV3(create(ZipReportSchema))));
    check(vastV3Schema, JSON.parse(renderVastV3(create(VastReportSchema))));
  });
});
