import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { CreativeType, MetaSchema, reportstore, TagReportSchema, ZipReportSchema } from "@cva/contracts";
import { renderReportPage } from "../src/report-page/render.ts";
import { fillImageUrls } from "../src/scan/images.ts";
import { renderTagV3, renderZipV2, renderZipV3, tagV3Schema, zipV3Schema } from "../src/views/index.ts";

// The tag's film strip with timestamps and the click point (issue 26): JSON view and OpenAPI, and on the report page
// (frames with their times; a ring over the screenshot where the scanner clicked, drawn in SVG: no style attribute).
// A zip's render is a tag report (its entry framed at ad.size): the zip v3 view and its report page carry the same.

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

  it("the film strip: every frame with its time, in order, cropped to the creative's box (from the click point)", () => {
    const html = page(renderTagV3(tag()));
    expect(html).toContain(`<h2 id="h-film-strip">Film strip</h2>`);
    // The box's corner in the viewport is the click point less its place in the screenshot: (170-150, 185-125) CSS px,
    // so (10, 30) in the half-resolution frame, 150x125 of it.
    const frames = [...html.matchAll(/<svg class="frame" viewBox="([^"]+)"[^>]*><image href="([^"]+)"[^>]*\/><\/svg><figcaption>([^<]+)<\/figcaption>/g)].map((m) => [m[1], m[2], m[3]]);
    expect(frames).toEqual([["10 30 150 125", `${BASE}/artifacts/f0`, "0 ms"], ["10 30 150 125", `${BASE}/artifacts/f1`, "1.71 s"], ["10 30 150 125", `${BASE}/artifacts/f2`, "12 s"]]);
    expect(html).toContain("each cropped to the creative&#39;s box");
    expect(html).not.toContain("Other fields");
  });

  it("without a click point the frames are the whole viewport", () => {
    const html = page(renderTagV3(tag({ clicked: false })));
    const frames = [...html.matchAll(/<img class="frame" src="([^"]+)"[^>]*><figcaption>([^<]+)<\/figcaption>/g)].map((m) => [m[1], m[2]]);
    expect(frames).toEqual([[`${BASE}/artifacts/f0`, "0 ms"], [`${BASE}/artifacts/f1`, "1.71 s"], [`${BASE}/artifacts/f2`, "12 s"]]);
    expect(html).toContain("each the whole viewport");
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

// The zip's render as the zip analyzer returns it: the tag report of its entry, framed at ad.size.
function zip(over: { clicked?: boolean } = {}) {
  const r = create(ZipReportSchema, { render: tag(over), hasBackupAd: true, backupAd: "backup.jpg" });
  r.render!.meta = create(MetaSchema, { creativeType: CreativeType.ZIP, apiVersion: "v3" });
  return r;
}

describe("zip v3: film_strip and click_point from the render", () => {
  it("the same frames and click point as the render's, schema-valid; none in v2", () => {
    const doc = JSON.parse(renderZipV3(zip()));
    const validate = ajv.compile(zipV3Schema);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(doc.film_strip.map((f: { time: number; image: { url: string } }) => [f.time, f.image.url])).toEqual([
      [0, `${BASE}/artifacts/f0`], [1714, `${BASE}/artifacts/f1`], [12000, `${BASE}/artifacts/f2`],
    ]);
    expect(doc.click_point).toEqual({ x: 170, y: 185, screenshot_x: 150, screenshot_y: 125, inside_screenshot: true });
    expect(JSON.parse(renderZipV3(zip({ clicked: false }))).click_point).toEqual({});
    // A zip report without a render (refused before it): every key still there, empty.
    const bare = JSON.parse(renderZipV3(create(ZipReportSchema)));
    expect(validate(bare), JSON.stringify(validate.errors)).toBe(true);
    expect(bare).toMatchObject({ film_strip: [], click_point: {} });
    const v2 = JSON.parse(renderZipV2(zip()));
    expect(v2).not.toHaveProperty("film_strip");
    expect(v2).not.toHaveProperty("click_point");
  });

  it("OpenAPI gives the zip's fields their meaning", () => {
    const props = (zipV3Schema as { properties: Record<string, { description?: string }> }).properties;
    expect(props.film_strip?.description).toMatch(/frames picked evenly across the animation/);
    expect(props.click_point?.description).toMatch(/where the scanner clicked/);
  });
});

describe("zip report page", () => {
  const page = (json: string) =>
    renderReportPage(create(reportstore.StoredReportSchema, { jobId: "z1", reportKind: "zip_v3", json: Buffer.from(json) }), { publicBaseUrl: BASE }).replace(/\u00a0/g, " ");

  it("the film strip with each frame's time, and the ring at the click point on the screenshot", () => {
    const html = page(renderZipV3(zip()));
    expect(html).toContain(`<h2 id="h-film-strip">Film strip</h2>`);
    const frames = [...html.matchAll(/<svg class="frame" viewBox="([^"]+)"[^>]*><image href="([^"]+)"[^>]*\/><\/svg><figcaption>([^<]+)<\/figcaption>/g)].map((m) => [m[1], m[2], m[3]]);
    expect(frames).toEqual([["10 30 150 125", `${BASE}/artifacts/f0`, "0 ms"], ["10 30 150 125", `${BASE}/artifacts/f1`, "1.71 s"], ["10 30 150 125", `${BASE}/artifacts/f2`, "12 s"]]);
    expect(html).toContain(`<circle class="ring" cx="150" cy="125"`);
    expect(html).not.toMatch(/ style="/);
    expect(html).not.toMatch(/Other fields[\s\S]*film_strip/);
  });
});
