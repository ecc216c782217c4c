// Known-truth archives for the v3 zip fields and spec set 0's zip tests: each archive is built to have (or lack)
// exactly one property, and the report and the test results must say so.
import { crc32, deflateSync } from "node:zlib";
import { create } from "@bufbuild/protobuf";
import {
  BundleSchema, DimensionsSchema, ScanJobResultSchema, ScanJobSchema, ScanKind, TagReportSchema, TestOutcome, type Bundle, type ScanJob, type ScanResults, type TagReport,
} from "@cva/contracts";
import { evaluateZip } from "@cva/spec-sets";
import jpeg from "jpeg-js";
import { describe, expect, it } from "vitest";
import { createZipAnalyzer } from "../src/index.ts";
import { DEFAULT_IMAGE_CHECK_LIMITS } from "../src/fields/image-optimization.ts";
import { jpegQuality, reencodePng } from "../src/fields/image-reencode.ts";
import { imageSize } from "../src/fields/image-size.ts";
import { ORIGIN } from "./fixtures.ts";
import { buildZip, type ZipEntrySpec } from "./zip-writer.ts";

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, "latin1"), data])));
  return Buffer.concat([len, Buffer.from(type, "latin1"), data, crc]);
}

/** An RGB PNG of w x h with a soft gradient, its pixel data deflated at `level` (0 = stored: an unoptimised PNG). */
function png(w: number, h: number, level: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc(h * (1 + w * 3));
  for (let y = 0; y < h; y++) {
    raw[y * (1 + w * 3)] = 0;
    for (let x = 0; x < w; x++) raw.set([x % 256, y % 256, 128], y * (1 + w * 3) + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from("89504e470d0a1a0a", "hex"),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(raw, { level })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

function jpg(w: number, h: number, quality = 80): Buffer {
  const data = Buffer.alloc(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([(i * 7) % 256, (i >> 8) % 256, 90, 255], i * 4);
  return Buffer.from(jpeg.encode({ data, width: w, height: h }, quality).data);
}

const INDEX = `<!DOCTYPE html><html><head><meta name="ad.size" content="width=300,height=250"><link rel="stylesheet" href="style.css">
<script>var clickTag = "https://www.example.com";</script></head>
<body><div id="ad" onclick="window.open(window.clickTag)"></div><img src="logo.png"></body></html>`;
const CSS = "#ad{width:300px;height:250px;background:url(bg.jpg)}";

/** The render as the tag scanner answers: a 300x250 creative that painted. */
async function render(bundle: Bundle): Promise<TagReport> {
  return create(TagReportSchema, {
    creativeRendered: true,
    dimensions: create(DimensionsSchema, { width: 300, height: 250 }),
    network: { responses: [{ url: `${ORIGIN}/${bundle.entry}`, resourceType: "document", status: 200 }] },
  });
}

async function scan(entries: ZipEntrySpec[]) {
  const data = buildZip(entries);
  const job = create(ScanJobSchema, { jobId: "z", kind: ScanKind.ZIP, apiVersion: "v3", input: { case: "zip", value: { data, captureLandingPage: true } } });
  const report = await createZipAnalyzer({ render, bundleOrigin: ORIGIN }).analyze(job);
  return { report, results: evaluateZip(report, 0), bytes: data.length };
}

const result = (r: ScanResults, id: string) => {
  const t = r.tests.find((x) => x.test === id);
  if (!t) throw new Error(`no result ${id}`);
  return { result: t.result === TestOutcome.PASSED ? "passed" : t.result === TestOutcome.FAILED ? "failed" : "error", actual: t.actual, message: t.message };
};

const base = (): ZipEntrySpec[] => [
  { name: "index.html", data: INDEX },
  { name: "style.css", data: CSS },
  { name: "logo.png", data: png(80, 40, 9) },
  { name: "bg.jpg", data: jpg(300, 250) },
];

describe("v3 zip: known-truth archives", () => {
  it("reads image sizes and JPEG quality from the bytes", () => {
    expect(imageSize(png(80, 40, 9))).toEqual({ width: 80, height: 40, format: "png" });
    expect(imageSize(jpg(300, 250))).toEqual({ width: 300, height: 250, format: "jpeg" });
    expect(jpegQuality(jpg(30, 30, 80))).toBe(80);
    expect(jpegQuality(jpg(30, 30, 35))).toBe(35);
    expect(reencodePng(png(80, 40, 0), DEFAULT_IMAGE_CHECK_LIMITS)).toBeLessThan(png(80, 40, 0).length * 0.9);
    expect(reencodePng(png(80, 40, 9), DEFAULT_IMAGE_CHECK_LIMITS)).toBeGreaterThan(png(80, 40, 9).length * 0.9);
  });

  it("a backup image present: an unreferenced image of the ad's size", async () => {
    const { report, results } = await scan([...base(), { name: "backup.jpg", data: jpg(300, 250) }]);
    expect([report.hasBackupAd, report.backupAd]).toEqual([true, "backup.jpg"]);
    expect(result(results, "backup_ad")).toMatchObject({ result: "passed", actual: 1, message: expect.stringContaining("backup.jpg") });
    // The rest of the archive is clean: every zip test passes.
    for (const id of ["meta_ad_size", "click_tag", "allowed_file_types", "zip_file_count", "zip_size", "unzipped_size", "image_optimization", "external_assets"]) {
      expect(result(results, id), id).toMatchObject({ result: "passed" });
    }
    expect(report.clickTagUsed).toBe(true);
    expect(Number(report.unzippedSize)).toBe(report.fileStructure.reduce((n, f) => n + Number(f.bytes), 0));
  });

  it("a backup image absent: the only image of the ad's size is the creative's own background", async () => {
    const { report, results } = await scan(base());
    expect([report.hasBackupAd, report.backupAd]).toEqual([false, ""]);
    expect(result(results, "backup_ad")).toMatchObject({ result: "failed", actual: 0, message: expect.stringContaining("no static image of the ad's size") });
  });

  it("an unoptimised PNG (pixel data stored, not compressed) fails image_optimization, naming it", async () => {
    const entries = base().map((e) => (e.name === "logo.png" ? { ...e, data: png(80, 40, 0) } : e));
    const { report, results } = await scan(entries);
    const logo = report.images.find((i) => i.name === "logo.png")!;
    expect(logo.error).toBe("");
    expect(Number(logo.reencodedBytes)).toBeLessThan(Number(logo.bytes) * 0.9);
    // The well-compressed JPEG re-encodes to about its own size.
    const bg = report.images.find((i) => i.name === "bg.jpg")!;
    expect(Number(bg.reencodedBytes)).toBeGreaterThan(Number(bg.bytes) * 0.9);
    expect(result(results, "image_optimization")).toMatchObject({ result: "failed", actual: 1, message: expect.stringMatching(/logo\.png \(−\d+ %\)/) });
  });

  it("a disallowed file type fails allowed_file_types, listing the files", async () => {
    const { results } = await scan([...base(), { name: "notes.txt", data: "todo" }, { name: "fonts/brand.woff2", data: "wOF2" }]);
    expect(result(results, "allowed_file_types")).toMatchObject({ result: "failed", actual: 2, message: expect.stringContaining("notes.txt, fonts/brand.woff2") });
  });

  it("too many files fails zip_file_count", async () => {
    const many = Array.from({ length: 38 }, (_, i) => ({ name: `frames/f${i}.png`, data: png(4, 4, 9) }));
    const { report, results } = await scan([...base(), ...many]);
    expect(report.fileStructure).toHaveLength(42);
    expect(result(results, "zip_file_count")).toMatchObject({ result: "failed", actual: 42, message: expect.stringContaining("expected at most 40 files") });
  });

  it("a click tag declared but never read fails click_tag; ad.size other than the rendered size fails meta_ad_size", async () => {
    const entries = base().map((e) =>
      e.name === "index.html"
        ? { ...e, data: INDEX.replace('onclick="window.open(window.clickTag)"', "").replace("width=300,height=250", "width=728,height=90") }
        : e,
    );
    const { report, results } = await scan(entries);
    expect([report.clickTagFound, report.clickTagUsed]).toEqual([true, false]);
    expect(result(results, "click_tag")).toMatchObject({ result: "failed", message: expect.stringContaining("declared but never used") });
    expect(result(results, "meta_ad_size")).toMatchObject({ result: "failed", message: expect.stringContaining("ad.size declares 728x90, but the creative renders 300x250") });
  });

  it("asks the tag scanner for the landing page of a v3 zip", async () => {
    const { renderViaDispatcher } = await import("../src/render-via-dispatcher.ts");
    const jobs: ScanJob[] = [];
    const r = renderViaDispatcher(
      { submit: async (job) => (jobs.push(job), create(ScanJobResultSchema, { jobId: job.jobId, outcome: { case: "tag", value: create(TagReportSchema) } })) },
      { location: "usa" },
    );
    const zipJob = create(ScanJobSchema, { jobId: "z", kind: ScanKind.ZIP, apiVersion: "v3", input: { case: "zip", value: { data: new Uint8Array(), captureLandingPage: true } } });
    await r(create(BundleSchema, { entry: "index.html" }), zipJob);
    const input = jobs[0]!.input;
    expect(input.case === "tag" && input.value.captureLandingPage).toBe(true);
  });
});
