import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { reportstore, TagReportSchema } from "@cva/contracts";
import { renderReportPage } from "../src/report-page/render.ts";
import { fillImageUrls } from "../src/scan/images.ts";
import { renderTagV3, tagV3Schema } from "../src/views/index.ts";

// The tag's film strip with timestamps and the click point (issue 26): JSON view and OpenAPI, and on the report page
// (frames with their times; a ring over the screenshot where the scanner clicked, drawn in SVG: no style attribute).

const ajv = new Ajv2020({ strict: false, allErrors: true });
const BASE = "https://edge.test";
const img = (id: string) => ({ id, bytes: 10n, mimeType: "image/jpeg", color: "" });

function tag(over: { clicked?: boolean } = {}) {
  const r = create(TagReportSchema, {
    jobId: "t1", name: "Spring",
    dimensions: { width: 300, height: 250 },
    screenshot: { highres: { ...img("hi"), mimeType: "image/png" }, thumbnail: img("th") },
    filmStrip: [{ image: img("f0"), timeMs: 0n }, { image: img("f1"), timeMs: 1714n }, { image: img("f2"), timeMs: 12000n }],
    ...(over.clicked === false ? {} : { clickPoint: { x: 170, y: 185, screenshotX: 150, screenshotY: 125, insideScreenshot: true } }),
  });
  fillImageUrls(r, (id) => `${BASE}/artifacts/${id}`);
  return r;
}

describe("tag v3: film_strip and click_point", () => {
  it("each frame with its time in ms and its image URL; the click point in viewport and screenshot px; schema-valid", () => {
    const doc = JSON.parse(renderTagV3(tag()));
    const validate = ajv.compile(tagV3Schema);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(doc.film_strip).toEqual([
      { time: 0, image: { bytes: 10, mime_type: "image/jpeg", url: `${BASE}/artifacts/f0` } },
      { time: 1714, image: { bytes: 10, mime_type: "image/jpeg", url: `${BASE}/artifacts/f1` } },
      { time: 12000, image: { bytes: 10, mime_type: "image/jpeg", url: `${BASE}/artifacts/f2` } },
    ]);
    expect(doc.click_point).toEqual({ x: 170, y: 185, screenshot_x: 150, screenshot_y: 125, inside_screenshot: true });
  });

  it("no click: click_point {}; an older report: film_strip []", () => {
    const doc = JSON.parse(renderTagV3(tag({ clicked: false })));
    expect(doc.click_point).toEqual({});
    expect(JSON.parse(renderTagV3(create(TagReportSchema))).film_strip).toEqual([]);
    const validate = ajv.compile(tagV3Schema);
    expect(validate(JSON.parse(renderTagV3(create(TagReportSchema)))), JSON.stringify(validate.errors)).toBe(true);
  });

  it("OpenAPI gives each new field its meaning", () => {
    const props = (tagV3Schema as { properties: Record<string, { description?: string; anyOf?: unknown[] }> }).properties;
    expect(props.film_strip?.description).toMatch(/frames picked evenly across the animation/);
    expect(props.click_point?.description).toMatch(/where the scanner clicked/);
  });
});

describe("tag report page", () => {
  const page = (json: string) =>
    renderReportPage(create(reportstore.StoredReportSchema, { jobId: "j1", reportKind: "tag_v3", json: Buffer.from(json) }), { publicBaseUrl: BASE }).replace(/\u00a0/g, " ");

  it("the film strip: every frame with its time, in order", () => {
    const html = page(renderTagV3(tag()));
    expect(html).toContain(`<h2 id="h-film-strip">Film strip</h2>`);
    const frames = [...html.matchAll(/<img class="frame" src="([^"]+)"[^>]*><figcaption>([^<]+)<\/figcaption>/g)].map((m) => [m[1], m[2]]);
    expect(frames).toEqual([[`${BASE}/artifacts/f0`, "0 ms"], [`${BASE}/artifacts/f1`, "1.71 s"], [`${BASE}/artifacts/f2`, "12 s"]]);
    expect(html).not.toContain("Other fields");
  });

  it("the screenshot carries a ring at the click point, in the screenshot's own px; none when the scanner did not click", () => {
    const html = page(renderTagV3(tag()));
    expect(html).toMatch(/<div class="shot-wrap"><img [^>]*src="https:\/\/edge.test\/artifacts\/hi"[^>]*><svg class="click" viewBox="0 0 300 250"/);
    expect(html).toContain(`<circle class="ring" cx="150" cy="125"`);
    expect(html).toContain("the ring is where the scanner clicked");
    expect(html).not.toMatch(/ style="/);
    const none = page(renderTagV3(tag({ clicked: false })));
    expect(none).not.toContain(`class="click"`);
  });
});
