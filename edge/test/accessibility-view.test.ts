import { Ajv2020 } from "ajv/dist/2020.js";
import { create } from "@bufbuild/protobuf";
import { Accessibility_PauseControl, TagReportSchema, ZipReportSchema, reportstore } from "@cva/contracts";
import { describe, expect, it } from "vitest";
import { renderReportPage } from "../src/report-page/render.ts";
import { renderTagV3, renderZipV3, tagV3Schema, zipV3Schema } from "../src/views/index.ts";

const ajv = new Ajv2020({ strict: false, allErrors: true });
const valid = (schema: object, doc: unknown) => {
  const v = ajv.compile(schema);
  expect(v(doc), JSON.stringify(v.errors)).toBe(true);
};

const a11y = {
  maxFlashesPerSecond: 10, flashRisk: true, worstSecondMs: 1200n, flashesJudged: true, framesAnalyzed: 57, flashAreaThresholdPx: 29141n,
  motionOver5s: true, pauseControl: Accessibility_PauseControl.MISSING,
  violations: [{ ruleId: "image-alt", impact: "critical", count: 1, targets: ["#noalt"], wcag: ["1.1.1"], help: "Images must have alternative text" }],
  notChecked: [{ kind: "canvas_text", count: 1, reason: "text drawn into a canvas is pixels" }],
  rulesChecked: ["image-alt", "color-contrast"],
};

describe("accessibility in the v3 views and on the report page", () => {
  it("tag v3 and zip v3 carry it, schema-valid, with its one-line summary; an older report has {}", () => {
    const tag = JSON.parse(renderTagV3(create(TagReportSchema, { accessibility: a11y })));
    valid(tagV3Schema, tag);
    expect(tag.accessibility).toMatchObject({
      max_flashes_per_second: 10, flash_risk: true, worst_second_ms: 1200, pause_control: "missing", frames_analyzed: 57, flash_area_threshold_px: 29141,
      violations: [{ rule_id: "image-alt", impact: "critical", count: 1, targets: ["#noalt"], wcag: ["1.1.1"] }],
      not_checked: [{ kind: "canvas_text", count: 1 }],
    });
    expect(tag.accessibility.summary).toBe("Flashes 10 times a second: a seizure risk (fails WCAG 2.3.1); moves over 5 s with no way to pause it; 1 markup problem (image-alt).");
    const zip = JSON.parse(renderZipV3(create(ZipReportSchema, { render: { accessibility: { ...a11y, flashRisk: false, maxFlashesPerSecond: 0, motionOver5s: false, violations: [] } } })));
    valid(zipV3Schema, zip);
    expect(zip.accessibility.summary).toBe("No dangerous flashing; no problems in its markup.");
    const old = JSON.parse(renderTagV3(create(TagReportSchema, {})));
    valid(tagV3Schema, old);
    expect(old.accessibility).toEqual({});
  });

  it("the report page shows the summary, the flash figures and where each finding is", () => {
    const json = renderTagV3(create(TagReportSchema, { accessibility: a11y, jobId: "j1" }));
    const html = renderReportPage(create(reportstore.StoredReportSchema, { jobId: "j1", reportKind: "tag_v3", json: new TextEncoder().encode(json) }), { publicBaseUrl: "https://edge.test" });
    expect(html).toContain('id="accessibility"');
    expect(html).toContain("Flashes 10 times a second: a seizure risk (fails WCAG 2.3.1)");
    expect(html).toContain("<code>#noalt</code>");
    expect(html).toContain("none: no visible control named pause or stop");
    expect(html).toContain("canvas_text");
  });
});
