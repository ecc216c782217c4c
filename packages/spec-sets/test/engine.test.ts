import { create } from "@bufbuild/protobuf";
import {
  TagReportSchema,
  TestOutcome,
  VastCreativeSchema,
  VastReportSchema,
  type ScanResults,
  type TestResult,
} from "@cva/contracts";
import { describe, expect, it } from "vitest";
import {
  UnknownSpecSetError,
  compare,
  evaluateTag,
  evaluateVast,
  isKnownSpecId,
  listSpecSets,
} from "../src/index.ts";
import { mediaFile, tagReport, vastReport } from "./fixtures.ts";

function find(results: ScanResults, test: string, group = ""): TestResult {
  const r = results.tests.find((t) => t.test === test && t.group === group);
  if (!r) throw new Error(`no result for ${group}/${test}`);
  return r;
}

describe("ad tag, spec set 0", () => {
  it("a 300x250 with 120 KB initial load passes initial_load", () => {
    const r = find(evaluateTag(tagReport(), 0), "initial_load");
    expect(r).toMatchObject({
      result: TestOutcome.PASSED,
      actual: 120,
      operator: "<=",
      expected: { case: "expectedNumber", value: 150 },
      expectedText: "at most 150 KB for 300x250",
      unit: "KB",
      dataType: "float",
      group: "",
    });
    expect(r.source).toContain("Initial / subload");
  });

  it("a 300x250 with 200 KB initial load fails it", () => {
    const report = tagReport();
    report.network!.loadSize!.initialLoad = 200_000n;
    const r = find(evaluateTag(report, 0), "initial_load");
    expect(r.result).toBe(TestOutcome.FAILED);
    expect(r.actual).toBe(200);
  });

  it("a 970x250 is judged against 250 KB, and the declared size wins over the measured one", () => {
    const report = tagReport({ dimensions: { width: 300, height: 250 }, declaredDimensions: { width: 970, height: 250 } });
    report.network!.loadSize!.initialLoad = 200_000n;
    const r = find(evaluateTag(report, 0), "initial_load");
    expect(r.expected).toEqual({ case: "expectedNumber", value: 250 });
    expect(r.result).toBe(TestOutcome.PASSED);
    expect(find(evaluateTag(report, 0), "host_initiated_subload").expected).toEqual({ case: "expectedNumber", value: 500 });
  });

  it("a 320x50 uses 50 KB; a size without an IAB figure gets no weight tests", () => {
    const small = evaluateTag(tagReport({ dimensions: { width: 320, height: 50 } }), 0);
    expect(find(small, "initial_load")).toMatchObject({ expected: { value: 50 }, result: TestOutcome.FAILED });
    const odd = evaluateTag(tagReport({ dimensions: { width: 333, height: 111 } }), 0);
    expect(odd.tests.map((t) => t.test)).not.toContain("initial_load");
    expect(odd.tests.map((t) => t.test)).toContain("cpu_usage");
  });

  it("a feature-phone banner has an initial-load figure but no subload figure (N/A)", () => {
    const results = evaluateTag(tagReport({ dimensions: { width: 120, height: 20 } }), 0);
    expect(find(results, "initial_load").expected).toEqual({ case: "expectedNumber", value: 5 });
    expect(results.tests.map((t) => t.test)).not.toContain("host_initiated_subload");
  });

  it("a throwing test becomes an error result and is counted neither passed nor failed", () => {
    const results = evaluateTag(tagReport({ network: undefined }), 0);
    const r = find(results, "initial_load");
    expect(r.result).toBe(TestOutcome.ERROR);
    expect(r.message).toMatch(/network/);
    expect(r.source).not.toBe("");
    const errors = results.tests.filter((t) => t.result === TestOutcome.ERROR).length;
    expect(errors).toBeGreaterThanOrEqual(4); // initial_load, subload, network_requests, heavy_ad_network
    expect(results.passed + results.failed + errors).toBe(results.tests.length);
    expect(results.passed).toBe(results.tests.filter((t) => t.result === TestOutcome.PASSED).length);
  });

  it("booleans are carried as 1/0", () => {
    const results = evaluateTag(tagReport({ hasBorder: false, usesDocumentWrite: true }), 0);
    expect(find(results, "creative_border")).toMatchObject({ actual: 0, dataType: "bool", result: TestOutcome.FAILED });
    expect(find(results, "document_write")).toMatchObject({ actual: 1, result: TestOutcome.FAILED });
    expect(find(results, "ssl")).toMatchObject({ actual: 1, result: TestOutcome.PASSED });
  });

  it("an animation still running at the time-out is unbounded: actual -1, failed, with a message", () => {
    const r = find(evaluateTag(tagReport({ animationDurationMs: -1n }), 0), "animation_duration");
    expect(r).toMatchObject({ actual: -1, result: TestOutcome.FAILED });
    expect(r.message).toMatch(/unbounded/);
  });

  it("counts the initial-load requests as split by the scanner's measured subload bytes", () => {
    const report = tagReport();
    expect(find(evaluateTag(report, 0), "network_requests")).toMatchObject({ actual: 3, result: TestOutcome.PASSED });
    // 14 requests of 1 KB, 50 ms apart; the scanner put the last 4 in the subload.
    report.network!.responses = Array.from({ length: 14 }, (_, i) => ({ ...report.network!.responses[0]!, startedMs: BigInt(i * 50), bytes: 1000n }));
    report.network!.loadSize!.hostInitiatedSubload = 4000n;
    expect(find(evaluateTag(report, 0), "network_requests")).toMatchObject({ actual: 10, result: TestOutcome.PASSED });
    report.network!.loadSize!.hostInitiatedSubload = 2000n;
    expect(find(evaluateTag(report, 0), "network_requests")).toMatchObject({ actual: 12, result: TestOutcome.FAILED });
    report.network!.loadSize!.hostInitiatedSubload = 0n; // load never fired: everything is initial load
    expect(find(evaluateTag(report, 0), "network_requests").actual).toBe(14);
    report.network!.loadSize!.hostInitiatedSubload = 2500n; // does not add up: an error, not a guess
    expect(find(evaluateTag(report, 0), "network_requests").result).toBe(TestOutcome.ERROR);
  });

  it("heavy ad: > 4 MB fails", () => {
    const report = tagReport();
    report.network!.loadSize!.total = 4n * 1024n * 1024n + 1n;
    expect(find(evaluateTag(report, 0), "heavy_ad_network").result).toBe(TestOutcome.FAILED);
    report.network!.loadSize!.total = 4n * 1024n * 1024n;
    expect(find(evaluateTag(report, 0), "heavy_ad_network").result).toBe(TestOutcome.PASSED);
  });

  it("records spec_id and leaves report_url to the edge", () => {
    const results = evaluateTag(tagReport(), 0);
    expect(results.specId).toBe(0);
    expect(results.reportUrl).toBe("");
  });
});

describe("spec set 1 (Chrome Heavy Ad only)", () => {
  it("runs only the heavy ad tests", () => {
    const results = evaluateTag(tagReport(), 1);
    expect(results.tests.map((t) => t.test).sort()).toEqual(["heavy_ad_cpu", "heavy_ad_network"]);
    expect(results.specId).toBe(1);
    expect(evaluateVast(vastReport(), 1).tests).toEqual([]);
  });

  it("adds Chrome's own verdict when the scan ran it: an unloaded ad fails, a creative not run again passes", () => {
    const unloaded = evaluateTag(tagReport({ heavyAd: { checked: true, intervened: true, reason: "network", watchedMs: 900, detail: "" } }), 1);
    expect(unloaded.tests.map((t) => t.test).sort()).toEqual(["heavy_ad_cpu", "heavy_ad_intervention", "heavy_ad_network"]);
    expect(unloaded.tests.find((t) => t.test === "heavy_ad_intervention")!.result).toBe(TestOutcome.FAILED);
    const light = evaluateTag(tagReport({ heavyAd: { checked: false, intervened: false, reason: "", watchedMs: 0, detail: "not run" } }), 1);
    expect(light.tests.find((t) => t.test === "heavy_ad_intervention")!.result).toBe(TestOutcome.PASSED);
  });
});

describe("VAST, spec set 0", () => {
  it("groups tests into xml and creative_X_mediafile_Y", () => {
    const report = vastReport({
      creatives: [
        create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [mediaFile(), mediaFile()] }),
        create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [mediaFile()] }),
      ],
    });
    const results = evaluateVast(report, 0);
    const groups = [...new Set(results.tests.map((t) => t.group))];
    expect(groups).toEqual(["xml", "creative_0_mediafile_0", "creative_0_mediafile_1", "creative_1_mediafile_0"]);
    expect(find(results, "vast_version", "xml").result).toBe(TestOutcome.PASSED);
    expect(find(results, "xml_content_type", "xml").result).toBe(TestOutcome.PASSED);
    expect(find(results, "http_code", "creative_0_mediafile_1").result).toBe(TestOutcome.PASSED);
    expect(results.failed).toBe(0);
    expect(results.passed).toBe(results.tests.length);
  });

  it("a moov atom at the end fails moov_atom; a non-MP4 container leaves it out", () => {
    const atEnd = mediaFile();
    atEnd.probe!.fileInfo!.container!.moovAtomPosition = "end";
    const webm = mediaFile();
    webm.probe!.fileInfo!.container!.moovAtomPosition = "";
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [atEnd, webm] })] }), 0);
    expect(find(results, "moov_atom", "creative_0_mediafile_0")).toMatchObject({ actual: 0, result: TestOutcome.FAILED });
    expect(results.tests.some((t) => t.test === "moov_atom" && t.group === "creative_0_mediafile_1")).toBe(false);
  });

  it("loudness -23 LUFS passes, -10 fails, with the between operator and lo#hi", () => {
    const loud = mediaFile();
    loud.probe!.fileInfo!.audio!.loudness!.lufs = -10;
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [mediaFile(), loud] })] }), 0);
    const ok = find(results, "loudness", "creative_0_mediafile_0");
    expect(ok).toMatchObject({ operator: "><", expected: { case: "expectedString", value: "-26#-22" }, actual: -23, result: TestOutcome.PASSED });
    expect(find(results, "loudness", "creative_0_mediafile_1")).toMatchObject({ actual: -10, result: TestOutcome.FAILED });
  });

  it("video bit rate uses the between operator; audio bit rate is looked up by codec profile", () => {
    const low = mediaFile();
    low.probe!.fileInfo!.video!.bitRate = 300_000n;
    low.probe!.fileInfo!.audio!.profile = "HE-AAC";
    low.probe!.fileInfo!.audio!.bitRate = 96_000n;
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [mediaFile(), low] })] }), 0);
    expect(find(results, "video_bit_rate", "creative_0_mediafile_0")).toMatchObject({ expected: { value: "500#2500" }, actual: 1900, result: TestOutcome.PASSED });
    expect(find(results, "video_bit_rate", "creative_0_mediafile_1")).toMatchObject({ actual: 300, result: TestOutcome.FAILED });
    expect(find(results, "audio_bit_rate", "creative_0_mediafile_0").expected).toEqual({ case: "expectedString", value: "128#192" });
    expect(find(results, "audio_bit_rate", "creative_0_mediafile_1")).toMatchObject({ expected: { value: "64#128" }, result: TestOutcome.PASSED });
  });

  it("a media file that does not download fails http_code and playable with the reason; its media tests are left out", () => {
    const broken = mediaFile({ probe: { httpCode: 404, error: "media download failed: HTTP 404 Not Found" } });
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [broken] })] }), 0);
    const http = find(results, "http_code", "creative_0_mediafile_0");
    expect(http).toMatchObject({ actual: 404, result: TestOutcome.FAILED });
    expect(http.message).toContain("HTTP 404 Not Found");
    expect(find(results, "playable", "creative_0_mediafile_0")).toMatchObject({ actual: 0, result: TestOutcome.FAILED });
    expect(results.tests.filter((t) => t.group === "creative_0_mediafile_0").map((t) => t.test).sort()).toEqual(["http_code", "playable"]);
    expect(results.tests.some((t) => t.result === TestOutcome.ERROR)).toBe(false);
    const ad = find(results, "playable_creatives", "xml");
    expect(ad.result).toBe(TestOutcome.FAILED);
    expect(ad.message).toContain("creative 0 (Linear): no media file a player can play: media file 0: media download failed: HTTP 404 Not Found");
  });

  it("duration_match compares declared and measured durations", () => {
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { duration: "00:00:15", mediafiles: [mediaFile()] })] }), 0);
    expect(find(results, "duration_match", "creative_0_mediafile_0").result).toBe(TestOutcome.FAILED);
  });

  it("flags invalid versions, wrong content types and deep wrapper chains", () => {
    const results = evaluateVast(vastReport({ vastVersion: "1.0", wrapperRedirects: 5, xml: { contentType: "text/html", httpCode: 200 } }), 0);
    expect(find(results, "vast_version", "xml").result).toBe(TestOutcome.FAILED);
    expect(find(results, "xml_content_type", "xml").result).toBe(TestOutcome.FAILED);
    expect(find(results, "wrapper_redirects", "xml").result).toBe(TestOutcome.FAILED);
  });
});

describe("VAST lint groups and the XSD test (known truth)", () => {
  const linted = { wrapperChain: [{ url: "https://ads.test/vast.xml", httpCode: 200, type: "inline", vastVersion: "4.2", lintRules: 240 }] };
  const finding = (rule: string, group: string, severity: string, line: number) => ({
    rule, group, severity, line, hop: 0, path: "/VAST/Ad[1]/InLine", spec: "VAST 4.2 §3.4.1 <AdSystem>", message: `message of ${rule}`,
  });

  it("each group fails on its error findings only, citing rule, section, hop and line; warnings are counted", () => {
    const results = evaluateVast(vastReport({
      ...linted,
      lint: [
        finding("vast.inline.ad-system.required", "required_elements", "error", 4),
        finding("vast.inline.ad-title.required", "required_elements", "error", 4),
        finding("vast.vpaid.deprecated", "deprecated_features", "warning", 30),
        finding("vast.url.insecure", "urls", "info", 12),
      ],
    }), 0);
    const required = find(results, "lint_required_elements", "xml");
    expect(required).toMatchObject({ result: TestOutcome.FAILED, actual: 2, source: expect.stringContaining("IAB VAST 2.0, 3.0, 4.0, 4.1, 4.2 and 4.3") });
    expect(required.message).toContain("hop 0 line 4 /VAST/Ad[1]/InLine: message of vast.inline.ad-system.required [vast.inline.ad-system.required; VAST 4.2 §3.4.1 <AdSystem>]");
    expect(find(results, "lint_deprecated_features", "xml")).toMatchObject({ result: TestOutcome.PASSED, actual: 0, message: expect.stringContaining("1 warning") });
    expect(find(results, "lint_urls", "xml")).toMatchObject({ result: TestOutcome.PASSED, actual: 0 });
    const lintTests = results.tests.filter((t) => t.test.startsWith("lint_"));
    expect(lintTests).toHaveLength(15);
  });

  it("no lint test is listed when no document of the chain was linted (nothing parsed)", () => {
    const results = evaluateVast(vastReport({ wrapperChain: [{ url: "https://ads.test/vast.xml", httpCode: 404, type: "unavailable", lintRules: 0 }] }), 0);
    expect(results.tests.filter((t) => t.test.startsWith("lint_"))).toEqual([]);
  });

  it("xml_schema is listed only when a document was validated; passed + failed then counts every listed test", () => {
    const unvalidated = evaluateVast(vastReport({ ...linted, schemaChecks: [{ hop: 0, schema: "", error: "no IAB schema for VAST 4.3" }] }), 0);
    expect(unvalidated.tests.map((t) => t.test)).not.toContain("xml_schema");
    const none = evaluateVast(vastReport(linted), 0);
    expect(none.tests.map((t) => t.test)).not.toContain("xml_schema");
    expect(none.passed + none.failed).toBe(none.tests.length);
    const validated = evaluateVast(vastReport({ ...linted, schemaChecks: [{ hop: 0, schema: "vast_4.2.xsd", findings: [{ line: 7, message: "Element 'Sponsor': This element is not expected." }] }] }), 0);
    expect(find(validated, "xml_schema", "xml")).toMatchObject({ result: TestOutcome.FAILED, actual: 1, message: expect.stringContaining("hop 0 (vast_4.2.xsd) line 7") });
  });
});

describe("VAST verdicts of ads that cannot play (known truth)", () => {
  const verdict = (r: ScanResults) => ({
    passed: r.passed, failed: r.failed, errors: r.tests.filter((t) => t.result === TestOutcome.ERROR).length,
  });

  it("a Linear with no MediaFile fails playable_creatives (was 9 passed / 0 failed)", () => {
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { type: "linear", duration: "00:00:30" })] }), 0);
    expect(verdict(results).failed).toBe(1);
    expect(find(results, "playable_creatives", "xml")).toMatchObject({
      result: TestOutcome.FAILED, actual: 0,
      message: "Playable Creatives: no, but expected every creative has something a player can play. creative 0 (Linear): no MediaFile",
    });
  });

  it("an HLS-only ad fails (was 10 passed / 0 failed with every media test an error)", () => {
    const hls = mediaFile({
      attributes: { type: "application/x-mpegURL", delivery: "streaming" },
      probe: { httpCode: 200, fileSize: 300n, error: "not a media file: HLS playlist (not followed)" },
    });
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [hls] })] }), 0);
    expect(verdict(results)).toMatchObject({ failed: 2, errors: 0 });
    expect(find(results, "http_code", "creative_0_mediafile_0").result).toBe(TestOutcome.PASSED);
    expect(find(results, "playable", "creative_0_mediafile_0").message).toContain("not a media file: HLS playlist (not followed)");
    expect(find(results, "playable_creatives", "xml").message).toContain("media file 0: not a media file: HLS playlist");
  });

  it("one playable rendition is enough for the ad; the broken one still fails its own tests", () => {
    const broken = mediaFile({ probe: { httpCode: 404, error: "media download failed: HTTP 404" } });
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [mediaFile(), broken] })] }), 0);
    expect(find(results, "playable_creatives", "xml").result).toBe(TestOutcome.PASSED);
    expect(find(results, "playable", "creative_0_mediafile_1").result).toBe(TestOutcome.FAILED);
  });

  it("VPAID-only is not playable by itself; a NonLinear plays when one overlay loaded", () => {
    const vpaid = mediaFile({ attributes: { type: "application/javascript", apiFramework: "VPAID" }, probe: { httpCode: 200, error: "not a media file: JavaScript" } });
    const overlayOk = { resourceType: "static", resourceUrl: "https://x.test/o.png", httpCode: 200, error: "" };
    const results = evaluateVast(vastReport({
      creatives: [
        create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [vpaid] }),
        create(VastCreativeSchema, { type: "nonlinear", nonLinears: [{ ...overlayOk, httpCode: 404, error: "the resource answered HTTP 404" }, overlayOk] }),
      ],
    }), 0);
    const ad = find(results, "playable_creatives", "xml");
    expect(ad.result).toBe(TestOutcome.FAILED);
    expect(ad.message).toContain("creative 0 (Linear): no media file a player can play: media file 0: VPAID/interactive code");
    expect(ad.message).not.toContain("creative 1");
    const overlays = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { type: "nonlinear", nonLinears: [{ ...overlayOk, error: "the resource answered HTTP 404" }] })] }), 0);
    expect(find(overlays, "playable_creatives", "xml").message).toContain("creative 0 (NonLinear): no overlay can be shown: overlay 0: the resource answered HTTP 404");
  });

  it("a value the prober did not measure is not evaluated, with the reason; the rest of the file is judged", () => {
    const cut = mediaFile();
    cut.probe!.fileInfo!.audio!.loudness = undefined;
    cut.probe!.analysisError = "media analysis timed out after 60 s";
    cut.probe!.notMeasured = ["file_info.audio.loudness", "file_info.video.letterboxing"];
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [cut] })] }), 0);
    const loud = find(results, "loudness", "creative_0_mediafile_0");
    expect(loud.result).toBe(TestOutcome.ERROR);
    expect(loud.message).toBe("test could not be evaluated: the loudness was not measured: media analysis timed out after 60 s");
    for (const t of ["http_code", "playable", "moov_atom", "video_bit_rate", "audio_bit_rate", "duration_match"]) {
      expect(find(results, t, "creative_0_mediafile_0").result, t).toBe(TestOutcome.PASSED);
    }
    expect(find(results, "playable_creatives", "xml").result).toBe(TestOutcome.PASSED);
  });

  it("a file the scan never probed is not evaluated (the scan's failure), never failed", () => {
    const never = mediaFile({ probe: { error: "not probed: no media worker answered", notProbed: true } });
    const results = evaluateVast(vastReport({ creatives: [create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [never] })] }), 0);
    const group = results.tests.filter((t) => t.group === "creative_0_mediafile_0");
    expect(group.length).toBeGreaterThan(0);
    for (const t of group) {
      expect(t.result, t.test).toBe(TestOutcome.ERROR);
      expect(t.message, t.test).toContain("no media worker answered");
    }
    expect(find(results, "playable_creatives", "xml").result).toBe(TestOutcome.ERROR);
  });

  it("a VAST URL that gave no answer: cors is not evaluated (no headers to judge), not failed", () => {
    const results = evaluateVast(vastReport({
      cors: false, creatives: [], notMeasured: ["cors", "xml.load_time"], xml: { httpCode: 0 },
      errors: ["VAST document http://x.test/v.xml could not be fetched: connection refused"],
    }), 0);
    const cors = find(results, "cors", "xml");
    expect(cors.result).toBe(TestOutcome.ERROR);
    expect(cors.message).toBe("test could not be evaluated: cors was not measured: the VAST URL gave no answer (VAST document http://x.test/v.xml could not be fetched: connection refused)");
    expect(find(results, "xml_http_code", "xml").result).toBe(TestOutcome.FAILED);
  });

  it("every failed or errored result says why; passed ones say what was measured", () => {
    const results = evaluateVast(vastReport({ vastVersion: "1.0", cors: false, creatives: [create(VastCreativeSchema, { duration: "00:00:15", mediafiles: [mediaFile()] })] }), 0);
    for (const t of results.tests) expect(t.message, `${t.group}/${t.test}`).not.toBe("");
    expect(find(results, "cors", "xml").message).toBe("CORS Header: no, but expected CORS headers set as VAST requires");
    expect(find(results, "duration_match", "creative_0_mediafile_0").message).toBe("Duration Match: 15.02 s, but expected measured duration within 1 s of the declared <Duration>");
    expect(find(results, "video_bit_rate", "creative_0_mediafile_0").message).toBe("Video Bit Rate: 1900 kbps (expected between 500 and 2500 kbps)");
    const tag = evaluateTag(tagReport({ network: undefined }), 0);
    for (const t of tag.tests) expect(t.message, t.test).not.toBe("");
  });
});

describe("spec set registry", () => {
  it("an unknown spec id throws UnknownSpecSetError", () => {
    expect(() => evaluateTag(tagReport(), 42)).toThrow(UnknownSpecSetError);
    expect(() => evaluateVast(vastReport(), -1)).toThrow(UnknownSpecSetError);
    expect(isKnownSpecId(42)).toBe(false);
    expect(isKnownSpecId(0)).toBe(true);
    expect(isKnownSpecId(1)).toBe(true);
  });

  it("lists the sets", () => {
    expect(listSpecSets()).toEqual([
      expect.objectContaining({ id: 0, name: "IAB guidelines" }),
      expect.objectContaining({ id: 1, name: "Chrome Heavy Ad Intervention" }),
      expect.objectContaining({ id: 2, name: "IAB guidelines, EBU R128 loudness" }),
      expect.objectContaining({ id: 3, name: "WCAG 2.2 accessibility" }),
    ]);
  });
});

describe("robustness", () => {
  it("an empty report never throws: missing measurements become error results", () => {
    for (const specId of [0, 1]) {
      const tag = evaluateTag(create(TagReportSchema), specId);
      expect(tag.passed + tag.failed + tag.tests.filter((t) => t.result === TestOutcome.ERROR).length).toBe(tag.tests.length);
      const vast = evaluateVast(create(VastReportSchema), specId);
      expect(vast.tests.every((t) => t.group === "xml")).toBe(true);
    }
    const errors = evaluateTag(create(TagReportSchema), 0).tests.filter((t) => t.result === TestOutcome.ERROR);
    expect(errors.map((t) => t.test)).toContain("heavy_ad_network");
    for (const e of errors) expect(e.message).toMatch(/^test could not be evaluated: /);
  });
});

describe("compare", () => {
  it("implements every operator; >< includes both bounds", () => {
    expect(compare("<", 5, 4)).toBe(true);
    expect(compare("<", 5, 5)).toBe(false);
    expect(compare("<=", 5, 5)).toBe(true);
    expect(compare(">", 5, 5)).toBe(false);
    expect(compare(">=", 5, 5)).toBe(true);
    expect(compare("==", 1, 1)).toBe(true);
    expect(compare("><", [1, 2], 1)).toBe(true);
    expect(compare("><", [1, 2], 2)).toBe(true);
    expect(compare("><", [1, 2], 2.01)).toBe(false);
    expect(() => compare("><", 5, 1)).toThrow();
    expect(() => compare("<", [1, 2], 1)).toThrow();
  });
});
