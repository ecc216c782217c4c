import { Ajv2020 } from "ajv/dist/2020.js";
import { create } from "@bufbuild/protobuf";
import { reportstore, ZipReportSchema } from "@cva/contracts";
import { describe, expect, it } from "vitest";
import { renderReportPage } from "../src/report-page/render.ts";
import { renderTagV3, renderZipV3, tagV3Schema, zipV3Schema } from "../src/views/index.ts";
import { fullTagReport, fullZipReport } from "./fakes.ts";

// heavy_ad (TagReport 37): Chrome's own Heavy Ad Intervention, in the v3 JSON of tags and zips and on the report page.
const ajv = new Ajv2020({ strict: false, allErrors: true });
const valid = (schema: object, doc: unknown) => {
  const v = ajv.compile(schema);
  expect(v(doc), JSON.stringify(v.errors)).toBe(true);
};

describe("heavy_ad in the v3 views", () => {
  it("tag and zip: Chrome's verdict as measured, {} when the scanner runs without it", () => {
    const r = fullTagReport();
    r.heavyAd = { $typeName: "cva.report.v1.HeavyAd", checked: true, intervened: true, reason: "network", watchedMs: 1200, detail: "unloaded" };
    const doc = JSON.parse(renderTagV3(r));
    valid(tagV3Schema, doc);
    expect(doc.heavy_ad).toMatchObject({ checked: true, intervened: true, reason: "network", watched_ms: 1200 });
    r.heavyAd = undefined;
    expect(JSON.parse(renderTagV3(r)).heavy_ad).toEqual({});

    const z = create(ZipReportSchema, fullZipReport());
    z.render!.heavyAd = { $typeName: "cva.report.v1.HeavyAd", checked: false, intervened: false, reason: "", watchedMs: 0, detail: "not run in an ad frame: …" };
    const zdoc = JSON.parse(renderZipV3(z));
    valid(zipV3Schema, zdoc);
    expect(zdoc.heavy_ad).toEqual({ checked: false, intervened: false, reason: "", watched_ms: 0, detail: "not run in an ad frame: …" });
  });

  it("the schema (and so the OpenAPI document) names Chrome's limits and the unit", () => {
    const text = JSON.stringify((tagV3Schema as { properties: Record<string, unknown> }).properties.heavy_ad);
    expect(text).toMatch(/4 MB/);
    expect(text).toMatch(/15 s of CPU in any 30 s/);
    expect(text).toMatch(/milliseconds/);
  });

  it("the report page gives Chrome's verdict in one line, and none when not measured", () => {
    const page = (heavy_ad: unknown) => renderReportPage(
      create(reportstore.StoredReportSchema, { jobId: "j", reportKind: "tag_v3", json: Buffer.from(JSON.stringify({ cpu_usage: 120, heavy_ad })) }),
      { publicBaseUrl: "https://edge.test" },
    ).replace(/\u00a0/g, " ");
    expect(page({ checked: true, intervened: true, reason: "cpu_peak", watched_ms: 16000, detail: "x" })).toMatch(/Chrome Heavy Ad Intervention.*unloaded by Chrome \(CPU over 15 s in 30 s\)/s);
    expect(page({ checked: false, intervened: false, reason: "", watched_ms: 0, detail: "not run in an ad frame: the first run stayed below half" })).toMatch(/far below Chrome&#39;s limits — the first run stayed below half|far below Chrome's limits — the first run stayed below half/);
    expect(page({})).not.toMatch(/Chrome Heavy Ad Intervention/);
  });
});
