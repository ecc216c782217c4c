import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { create } from "@bufbuild/protobuf";
import { ScanJobSchema, ScanKind, type Bundle, type ScanJob, type ZipReport } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { corpusPath, describeWithCorpus } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBrowserPool, createTagScanner, type BrowserPool, type TagScanner } from "../../tag-scanner/src/index.ts";
import { createZipAnalyzer, type ZipAnalyzer } from "../src/index.ts";
import { zipJob } from "./fixtures.ts";
import { buildZip, type ZipEntrySpec } from "./zip-writer.ts";

// Real renders of the corpus banners: each folder zipped, analysed, and its entry rendered by the tag scanner in
// Chromium as production does (the zip analyzer's bundle, frame_size included). Known truths come from the corpus
// README §2 and the files themselves; this machine has no internet, so every CDN script is a missing asset.

const corpus = corpusPath("html5");

function entries(dir: string, sep = "/"): ZipEntrySpec[] {
  const out: ZipEntrySpec[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const relPath = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, relPath)).isDirectory()) walk(relPath);
      // Compress-Archive (PowerShell 5.1): MS-DOS host, backslash separators.
      else out.push({ name: relPath.replaceAll("/", sep), data: readFileSync(path.join(dir, relPath)), ...(sep === "\\" ? { versionMadeBy: 20 } : {}) });
    }
  };
  walk("");
  return out;
}

const folder = (vendor: string, creative: string) => path.join(corpus, vendor, creative);
const missingUrls = (r: ZipReport) => r.render!.missingAssets.map((m) => m.url);
const localMissing = (r: ZipReport) => missingUrls(r).filter((u) => u.startsWith("https://creative.cva.invalid/"));

describeWithCorpus("corpus banners rendered in Chromium", "html5", () => {
  let pool: BrowserPool;
  let scanner: TagScanner;
  let analyzer: ZipAnalyzer;
  const bundles: Bundle[] = [];

  beforeAll(() => {
    pool = createBrowserPool({ browsers: 1, slots: 2 });
    scanner = createTagScanner({
      pool, artifacts: createMemoryArtifactSink(), location: "usa",
      policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
      timeouts: { renderMs: 15_000, holdMs: 2_000, stepMs: 4_000, landingMs: 4_000 },
    });
    // What render-via-dispatcher sends a tag worker, without NATS in between.
    const render = (bundle: Bundle, job: ScanJob) => {
      bundles.push(bundle);
      return scanner.scan(create(ScanJobSchema, {
        jobId: `${job.jobId}-render`, kind: ScanKind.TAG, apiVersion: job.apiVersion, targeting: job.targeting,
        input: { case: "tag", value: { creative: { case: "bundle", value: bundle }, captureLandingPage: false } },
      }));
    };
    analyzer = createZipAnalyzer({ render, bundleOrigin: "https://creative.cva.invalid" });
  });
  afterAll(async () => {
    await pool?.close();
  });

  const scan = (dir: string, sep = "/") => analyzer.analyze(zipJob(buildZip(entries(dir, sep))));

  it("Sizmek/GSAP 300x250 and 728x90 (ad.size): rendered in a slot of their ad size, measured at it", async () => {
    for (const [creative, w, h] of [["sizmek-gsap-300x250", 300, 250], ["sizmek-gsap-728x90", 728, 90]] as const) {
      const r = await scan(folder("hangarlabs-base-html5-banner", creative));
      expect(bundles.at(-1)!.frameSize, creative).toMatchObject({ width: w, height: h });
      const t = r.render!;
      expect(r.metaAdSize).toBe(true);
      expect(t.creativeRendered, creative).toBe(true);
      expect(t.dimensions, creative).toMatchObject({ width: w, height: h });
      expect(t.declaredDimensions, creative).toMatchObject({ width: w, height: h });
      expect(t.visualArtifacts, creative).toBe(false);
      // Every file of the zip was found; what is missing is the internet (GSAP on cdnjs, Sizmek's EBLoader).
      expect(localMissing(r), creative).toEqual([]);
      expect(missingUrls(r).some((u) => u.includes("cdnjs.cloudflare.com")), creative).toBe(true);
      expect(missingUrls(r).some((u) => u.includes("serving-sys.com")), creative).toBe(true);
      expect(r.hasExternalAssets).toBe(true);
      expect(r.minified).toBe(true);
      expect(t.screenshot?.highres?.color, creative).toBe("#33d3e1");
    }
  });

  it("AppNexus standard 300x250 (no ad.size: the entry is the page): 300x250 from its CSS box and border", async () => {
    const r = await scan(folder("appnexus-html5-lib", "standard-300x250"));
    expect(bundles.at(-1)!.frameSize).toBeUndefined();
    expect(r.render!.creativeRendered).toBe(true);
    expect(r.render!.dimensions).toMatchObject({ width: 300, height: 250 });
    expect(localMissing(r)).toEqual([]);
    expect(missingUrls(r).some((u) => u.includes("acdn.adnxs.com"))).toBe(true);
  });

  it("the same banner zipped by Windows Compress-Archive (backslash paths) renders the same, every local file found", async () => {
    const r = await scan(folder("appnexus-html5-lib", "standard-300x250"), "\\");
    expect(r.fileStructure.map((f) => f.name).sort()).toEqual(["css/main.css", "images/an_logo.png", "index.html"]);
    expect(r.render!.dimensions).toMatchObject({ width: 300, height: 250 });
    expect(localMissing(r)).toEqual([]);
  });

  it("Adobe AMO (its only image, assets/bg.jpg, is not in the zip): nothing paints, the missing file is named", async () => {
    const r = await scan(folder("adobedocs-advertising", "amo-simple-clicktag-300x250-missing-asset"));
    expect(r.clickTagFound).toBe(true);
    expect(r.render!.creativeRendered).toBe(false);
    expect(r.render!.dimensions).toMatchObject({ width: 0, height: 0 });
    expect(Number(r.render!.timeToVisualStartMs)).toBe(-1);
    expect(localMissing(r)).toEqual(["https://creative.cva.invalid/assets/bg.jpg"]);
  });

  it("GWD + DoubleClick Enabler (Enabler.js unreachable): the creative waits for Enabler and never paints", async () => {
    const r = await scan(folder("joemidi-gsap-adwords-300x250", "gwd-gsap-adwords-300x250"));
    expect(r.html5Library).toContain("Google Web Designer");
    expect(r.render!.creativeRendered).toBe(false);
    expect(missingUrls(r).some((u) => u.includes("Enabler.js"))).toBe(true);
  });

  it("AppNexus interstitial (responsive, no ad.size): follows a phone-width viewport, so mobile friendly", async () => {
    const r = await scan(folder("appnexus-html5-lib", "interstitial-video"));
    expect(r.render!.creativeRendered).toBe(true);
    expect(r.render!.mobileFriendly).toBe(true);
    // The orphan js/script.js and media/video.mp4 are listed but never requested.
    expect(r.render!.network!.responses.some((x) => x.url.endsWith("/media/video.mp4"))).toBe(false);
  });
}, 120_000);
