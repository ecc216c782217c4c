import { Ajv2020 } from "ajv/dist/2020.js";
import { create } from "@bufbuild/protobuf";
import { reportstore, ZipReportSchema } from "@cva/contracts";
import { describe, expect, it } from "vitest";
import { renderReportPage } from "../src/report-page/render.ts";
import { renderTagV3, renderZipV3, tagV3Schema, zipV3Schema } from "../src/views/index.ts";
import { fullTagReport, fullZipReport } from "./fakes.ts";

// cpu (TagReport 34): the load on the reference device, in the v3 JSON of tags and zips and on the report page.
const ajv = new Ajv2020({ strict: false, allErrors: true });
const valid = (schema: object, doc: unknown) => {
  const v = ajv.compile(schema);
  expect(v(doc), JSON.stringify(v.errors)).toBe(true);
};

describe("cpu in the v3 views", () => {
  it("tag and zip: the two percents when measured, {} when the scanner had no calibration", () => {
    const r = fullTagReport();
    r.cpu = { $typeName: "cva.report.v1.CpuLoad", averagePercent: 12.5, peakPercent: 48.3 };
    const doc = JSON.parse(renderTagV3(r));
    valid(tagV3Schema, doc);
    expect(doc.cpu).toEqual({ average_percent: 12.5, peak_percent: 48.3 });
    r.cpu = undefined;
    const none = JSON.parse(renderTagV3(r));
    valid(tagV3Schema, none);
    expect(none.cpu).toEqual({});

    const z = create(ZipReportSchema, fullZipReport());
    z.render!.cpu = { $typeName: "cva.report.v1.CpuLoad", averagePercent: 3, peakPercent: 9.5 };
    const zdoc = JSON.parse(renderZipV3(z));
    valid(zipV3Schema, zdoc);
    expect(zdoc.cpu).toEqual({ average_percent: 3, peak_percent: 9.5 });
  });

  it("the schema (and so the OpenAPI document) says what the figures mean and their unit", () => {
    const text = JSON.stringify((tagV3Schema as { properties: Record<string, unknown> }).properties.cpu);
    expect(text).toMatch(/percent/);
    expect(text).toMatch(/reference device/);
    expect(text).toMatch(/BenchmarkIndex 1000/);
  });

  it("the report page gives one line, and none when not measured", () => {
    const page = (cpu: unknown) => renderReportPage(
      create(reportstore.StoredReportSchema, { jobId: "j", reportKind: "tag_v3", json: Buffer.from(JSON.stringify({ cpu_usage: 120, cpu })) }),
      { publicBaseUrl: "https://edge.test" },
    ).replace(/\u00a0/g, " ");
    expect(page({ average_percent: 12.5, peak_percent: 48.3 })).toMatch(/CPU load on a reference phone.*12\.5 % average, 48\.3 % in its busiest second/s);
    expect(page({})).not.toMatch(/CPU load on a reference phone/);
  });
});
