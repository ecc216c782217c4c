import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describeWithCorpus } from "@cva/platform/testing/index.ts";
import { expect, it } from "vitest";
import { createZipAnalyzer, ZipError } from "../src/index.ts";
import type { ZipReport } from "@cva/contracts";
import { fakeRender, zipFolder, zipJob } from "./fixtures.ts";

/** What corpus/README §2 says about each creative (entry error for those whose main file is not index.html). */
const EXPECTED: Record<string, Partial<{ click: boolean; meta: boolean; minified: boolean; library: string[]; entryError: true }>> = {
  "amo-simple-clicktag-300x250-missing-asset": { click: true, meta: false, minified: true },
  "standard-300x250": { click: false, meta: false, minified: false },
  "expanding-300x250": { click: false, meta: false, minified: false },
  "interstitial-video": { click: false, meta: false, minified: false },
  "gwd-standard-300x250": { click: false, meta: false, minified: true, library: ["Google Web Designer"] },
  "gwd-gsap-adwords-300x250": { click: false, meta: false, minified: true, library: ["GSAP", "Google Web Designer"] },
  "sizmek-gsap-300x250": { click: false, meta: true, minified: true, library: ["GSAP"] },
  "sizmek-gsap-728x90": { click: false, meta: true, minified: true, library: ["GSAP"] },
  "animatecc-dcm-300x250": { entryError: true },
  "dc-studio-expanding-1000x50": { entryError: true },
  // index.html exists, but the clickTag is declared in the other HTML file (the one Animate exported).
  "animatecc-v2017-two-html-entrypoints-300x250": { click: false, meta: false, minified: false, library: ["CreateJS"] },
};

/** Every creative folder of the corpus (vendor/creative). */
const foldersOf = (corpus: string) =>
  readdirSync(corpus).flatMap((vendor) => {
    const dir = path.join(corpus, vendor);
    return statSync(dir).isDirectory()
      ? readdirSync(dir).filter((c) => statSync(path.join(dir, c)).isDirectory()).map((c) => path.join(dir, c))
      : [];
  });

describeWithCorpus("corpus html5 creatives", "html5", (corpus) => {
  const folders = foldersOf(corpus);
  for (const dir of folders) {
    const name = path.basename(dir);
    const hasIndex = existsSync(path.join(dir, "index.html"));
    it(`${path.basename(path.dirname(dir))}/${name}`, async () => {
      const { render, calls } = fakeRender();
      const analyzer = createZipAnalyzer({ render });
      const expected = EXPECTED[name] ?? {};
      if (!hasIndex) {
        const err = await analyzer.analyze(zipJob(zipFolder(dir))).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ZipError);
        expect((err as ZipError).message).toBe("the zip has no index.html at its root or in a single top-level folder");
        expect(calls).toHaveLength(0);
        return;
      }
      expect(expected.entryError).toBeUndefined();
      const report: ZipReport = await analyzer.analyze(zipJob(zipFolder(dir)));
      expect(report.entryPoint).toBe("index.html");
      expect(report.fileStructure.length).toBeGreaterThan(0);
      expect(report.fileStructure.find((f) => f.name === "index.html")?.type).toBe("html");
      // Every corpus creative loads at least one script from the internet (README §2).
      expect(report.hasExternalAssets).toBe(true);
      if (expected.click !== undefined) expect(report.clickTagFound).toBe(expected.click);
      if (expected.meta !== undefined) expect(report.metaAdSize).toBe(expected.meta);
      if (expected.minified !== undefined) expect(report.minified).toBe(expected.minified);
      for (const lib of expected.library ?? []) expect(report.html5Library).toContain(lib);
    });
  }

  it("gives the same entry point when a creative is zipped inside a folder", async () => {
    const dir = folders.find((d) => d.endsWith("sizmek-gsap-300x250"));
    if (!dir) throw new Error("the corpus has no html5 creative sizmek-gsap-300x250");
    const { render } = fakeRender();
    const report = await createZipAnalyzer({ render }).analyze(zipJob(zipFolder(dir, "sizmek-gsap-300x250/")));
    expect(report.entryPoint).toBe("sizmek-gsap-300x250/index.html");
    expect(report.metaAdSize).toBe(true);
    expect(report.render?.declaredDimensions).toMatchObject({ width: 300, height: 250 });
  });
});
