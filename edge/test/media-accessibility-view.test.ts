import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { reportstore, VastReportSchema, VideoFileReportSchema, type MediaAccessibility } from "@cva/contracts";
import { renderReportPage } from "../src/report-page/render.ts";
import { renderVastV3, renderVideoV3, vastV3Schema, videoV3Schema } from "../src/views/index.ts";

// Captions, audio description and flashes of a media file (issue 25 §1, §4) in the JSON views (scanVideo's report, a
// VAST media file), in OpenAPI, and on the report page. A VAST media file carries the flash fields when it is the
// rendition analysed for its creative; the others carry none, and flashes_not_judged_reason says where they are.

const ajv = new Ajv2020({ strict: false, allErrors: true });
function check(schema: object, doc: unknown) {
  const validate = ajv.compile(schema);
  expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
}

const a11y = (over: Partial<Omit<MediaAccessibility, "$typeName" | "$unknown">> = {}) => ({
  captions: true,
  captionTracks: [
    { streamIndex: 2, codec: "mov_text", language: "eng", title: "", declaredBy: "subtitle_stream" },
    { streamIndex: 0, codec: "cea_608_708", language: "", title: "", declaredBy: "video_closed_captions" },
  ],
  audioDescription: true,
  audioDescriptionTracks: [{ streamIndex: 3, codec: "aac", language: "eng", title: "", declaredBy: "disposition_descriptions" }],
  maxFlashesPerSecond: 10, maxRedFlashesPerSecond: 0, redFlash: false, flashRisk: true, worstSecondMs: 1000n,
  flashesJudged: true, flashesNotJudgedReason: "", framesAnalyzed: 90, flashAnalysisFps: 30, flashAreaThresholdPx: 2133n,
  ...over,
});

const video = (over: Partial<MediaAccessibility> = {}, notMeasured: string[] = []) =>
  create(VideoFileReportSchema, { jobId: "v1", name: "Spot", accessibility: a11y(over), notMeasured });

describe("scanVideo's accessibility section", () => {
  it("captions, audio description and the flash figures, schema-valid, with a plain-language summary", () => {
    const doc = JSON.parse(renderVideoV3(video()));
    check(videoV3Schema, doc);
    expect(doc.accessibility).toEqual({
      summary: "Flashes 10 times a second: a seizure risk (fails WCAG 2.3.1); captions carried in the file (eng); an audio description track is declared.",
      captions: true,
      caption_tracks: [
        { stream_index: 2, codec: "mov_text", language: "eng", title: "", declared_by: "subtitle_stream" },
        { stream_index: 0, codec: "cea_608_708", language: "", title: "", declared_by: "video_closed_captions" },
      ],
      audio_description: true,
      audio_description_tracks: [{ stream_index: 3, codec: "aac", language: "eng", title: "", declared_by: "disposition_descriptions" }],
      max_flashes_per_second: 10, max_red_flashes_per_second: 0, red_flash: false, flash_risk: true, worst_second_ms: 1000,
      flashes_judged: true, flashes_not_judged_reason: "", frames_analyzed: 90, flash_analysis_fps: 30, flash_area_threshold_px: 2133,
    });
  });

  it("what was not measured is left out and listed: captions after a failed probe, the flash figures after a failed pass", () => {
    const flashPaths = ["max_flashes_per_second", "max_red_flashes_per_second", "red_flash", "flash_risk", "worst_second_ms", "frames_analyzed", "flash_analysis_fps", "flash_area_threshold_px"];
    const r = video({ captions: false, captionTracks: [], flashesJudged: false, flashesNotJudgedReason: "video analysis timed out" }, [
      "accessibility.captions", ...flashPaths.map((p) => `accessibility.${p}`),
    ]);
    const doc = JSON.parse(renderVideoV3(r));
    check(videoV3Schema, doc);
    for (const k of ["captions", ...flashPaths]) expect(k in doc.accessibility, k).toBe(false);
    expect(doc.accessibility.summary).toBe("Captions could not be looked for in full; an audio description track is declared.");
    expect(doc.accessibility.flashes_not_judged_reason).toBe("video analysis timed out");
  });

  it("a report stored before the section existed has accessibility {}", () => {
    const doc = JSON.parse(renderVideoV3(create(VideoFileReportSchema)));
    check(videoV3Schema, doc);
    expect(doc.accessibility).toEqual({});
  });

  it("every field has its meaning in OpenAPI", () => {
    const s = (videoV3Schema as { properties: Record<string, { anyOf: Array<{ properties?: Record<string, { description?: string }> }> }> }).properties.accessibility;
    const props = s.anyOf[0]!.properties!;
    const missing = Object.entries(props).filter(([k, v]) => k !== "caption_tracks" && k !== "audio_description_tracks" && !v.description).map(([k]) => k);
    expect(missing).toEqual([]);
    expect(Object.keys(props)).toEqual(expect.arrayContaining(["captions", "audio_description", "max_flashes_per_second", "red_flash", "flash_risk", "worst_second_ms"]));
  });
});

describe("a VAST media file's accessibility", () => {
  const vast = (accessibility: ReturnType<typeof a11y> | undefined, notMeasured: string[] = []) => create(VastReportSchema, {
    creatives: [{ type: "linear", mediafiles: [{ attributes: { type: "video/mp4" }, probe: { url: "https://cdn.example.com/a.mp4", httpCode: 200, accessibility, notMeasured } }] }],
  });

  it("a rendition not analysed: captions and audio description only; no flash fields; the reason", () => {
    const reason = "not analysed on this rendition: flashes are analysed on one media file per Linear creative";
    const doc = JSON.parse(renderVastV3(vast(a11y({ flashesJudged: false, flashesNotJudgedReason: reason, framesAnalyzed: 0, maxFlashesPerSecond: 0, flashRisk: false, worstSecondMs: -1n, flashAnalysisFps: 0, flashAreaThresholdPx: 0n }))));
    check(vastV3Schema, doc);
    const a = doc.creatives[0].mediafiles[0].accessibility;
    expect(a).toEqual({
      summary: "Captions carried in the file (eng); an audio description track is declared.",
      captions: true,
      caption_tracks: [
        { stream_index: 2, codec: "mov_text", language: "eng", title: "", declared_by: "subtitle_stream" },
        { stream_index: 0, codec: "cea_608_708", language: "", title: "", declared_by: "video_closed_captions" },
      ],
      audio_description: true,
      audio_description_tracks: [{ stream_index: 3, codec: "aac", language: "eng", title: "", declared_by: "disposition_descriptions" }],
      flashes_judged: false,
      flashes_not_judged_reason: reason,
    });
  });

  it("the rendition analysed: the flash fields of scanVideo, same names and values, schema-valid; a failed analysis leaves them out", () => {
    const doc = JSON.parse(renderVastV3(vast(a11y())));
    check(vastV3Schema, doc);
    const a = doc.creatives[0].mediafiles[0].accessibility;
    expect(a).toMatchObject({
      summary: "Flashes 10 times a second: a seizure risk (fails WCAG 2.3.1); captions carried in the file (eng); an audio description track is declared.",
      max_flashes_per_second: 10, max_red_flashes_per_second: 0, red_flash: false, flash_risk: true, worst_second_ms: 1000,
      flashes_judged: true, flashes_not_judged_reason: "", frames_analyzed: 90, flash_analysis_fps: 30, flash_area_threshold_px: 2133,
    });
    expect(JSON.stringify(vastV3Schema)).toContain("the flash fields are present on that media file only");
    const flashPaths = ["max_flashes_per_second", "max_red_flashes_per_second", "red_flash", "flash_risk", "worst_second_ms", "frames_analyzed", "flash_analysis_fps", "flash_area_threshold_px"];
    const failed = JSON.parse(renderVastV3(vast(a11y({ framesAnalyzed: 0, flashesJudged: false, flashesNotJudgedReason: "the flash pass did not finish (video could not be decoded)" }), flashPaths.map((p) => `accessibility.${p}`))));
    check(vastV3Schema, failed);
    const f = failed.creatives[0].mediafiles[0].accessibility;
    for (const p of flashPaths) expect(p in f, p).toBe(false);
    expect(f.flashes_not_judged_reason).toBe("the flash pass did not finish (video could not be decoded)");
  });

  it("a file never probed has accessibility {}; captions not measured are left out and listed", () => {
    check(vastV3Schema, JSON.parse(renderVastV3(vast(undefined))));
    expect(JSON.parse(renderVastV3(vast(undefined))).creatives[0].mediafiles[0].accessibility).toEqual({});
    const doc = JSON.parse(renderVastV3(vast(a11y({ captions: false, captionTracks: [] }), ["accessibility.captions"])));
    check(vastV3Schema, doc);
    expect("captions" in doc.creatives[0].mediafiles[0].accessibility).toBe(false);
  });
});

describe("report pages", () => {
  const BASE = "https://edge.test";
  const page = (kind: string, json: string) =>
    renderReportPage(create(reportstore.StoredReportSchema, { jobId: "j1", reportKind: kind, json: Buffer.from(json) }), { publicBaseUrl: BASE }).replace(/\u00a0/g, " ");
  const row = (k: string, v: string) => `<th scope="row">${k}</th><td>${v}</td>`;

  it("video: the summary, the flash verdict, and each caption / audio description track", () => {
    const html = page("video_v3", renderVideoV3(video()));
    expect(html).toContain("Flashes 10 times a second: a seizure risk (fails WCAG 2.3.1); captions carried in the file (eng)");
    expect(html).toContain(row("Seizure risk (WCAG 2.3.1)", `<span class="flag bad">fails</span>`));
    expect(html).toContain(row("Captions in the file", `<span class="flag good">yes</span>`));
    expect(html).toContain(row("Worst second", "from 1 s after the first frame"));
    expect(html).toContain("<code>cea_608_708</code>");
    expect(html).toContain("video closed captions");
    expect(html).toContain("audio description");
  });

  it("VAST: each media file card says what it carries; the analysed rendition shows its flash verdict, the others where it is", () => {
    const reason = "not analysed on this rendition: flashes are analysed on one media file per Linear creative";
    const other = a11y({ captions: false, captionTracks: [], audioDescription: false, audioDescriptionTracks: [], flashesJudged: false, flashesNotJudgedReason: reason, framesAnalyzed: 0, maxFlashesPerSecond: 0, flashRisk: false, worstSecondMs: -1n });
    const r = create(VastReportSchema, {
      creatives: [{ type: "linear", mediafiles: [{ attributes: { type: "video/mp4" }, probe: { url: "https://cdn.example.com/a.mp4", httpCode: 200, accessibility: other } }] }],
    });
    const html = page("vast_v3", renderVastV3(r));
    expect(html).toContain("No captions in the file; no audio description declared.");
    expect(html).toContain(row("Captions in the file", `<span class="flag bad">no</span>`));
    expect(html).toContain(row("Flashes analysed", `no: ${reason}`));
    expect(html).not.toContain("Seizure risk");
    const analysed = page("vast_v3", renderVastV3(create(VastReportSchema, {
      creatives: [{ type: "linear", mediafiles: [{ attributes: { type: "video/mp4" }, probe: { url: "https://cdn.example.com/s.mp4", httpCode: 200, accessibility: a11y() } }] }],
    })));
    expect(analysed).toContain("Flashes 10 times a second: a seizure risk (fails WCAG 2.3.1)");
    expect(analysed).toContain(row("Seizure risk (WCAG 2.3.1)", `<span class="flag bad">fails</span>`));
    expect(analysed).toContain(row("Flashes per second (most)", "10"));
    expect(analysed).toContain(row("Frames analysed", "90 (30 a second)"));
  });
});
