// The linter on the real VAST documents of the shared corpus (skipped visibly without it): it never fails on a
// document, every finding points at an element of it, and the well-formed real documents — IAB's samples of every
// version, IMA's canned ads, a VAST 4.3 pair — give no `error` except the ones pinned below, each a true finding
// (a requirement of the document's own version it breaks).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lintDocument } from "../src/lint/index.ts";
import { decodeXmlBytes, parseXmlDocument } from "../src/xml-tree.ts";
import { listXml, vastDir } from "./corpus-fixture.ts";
import { existsSync } from "node:fs";

const WELL_FORMED = /^(iab-vast-samples|googleads-videojs-ima|haxqer-vast)\//;

/** The error rules real well-formed documents break, by document: what the linter finds, and why it is right. */
const KNOWN_ERRORS: Record<string, string[]> = {
  // IAB's own VAST 4.1/4.2 Ad Verification samples leave out what 4.1 made required on <Verification>.
  "iab-vast-samples/vast-4.1/Ad_Verification-test.xml": ["vast.verification.js-resource.api-framework.required", "vast.verification.vendor.required"],
  "iab-vast-samples/vast-4.2/Ad_Verification-test.xml": ["vast.verification.js-resource.api-framework.required", "vast.verification.vendor.required"],
  // Tremor's VAST 2.0 samples: InLine ads without <Impression> (required by every version); a MediaFile without delivery.
  "iab-vast-samples/vast-1-2.0/tremor-video/vast2Nonlinear.xml": ["vast.inline.impression.required"],
  "iab-vast-samples/vast-1-2.0/tremor-video/vast2VPAIDLinear.xml": ["vast.inline.impression.required", "vast.media-file.delivery.required"],
  // FreeWheel's VAST 4.1 response has no <AdServingId>, which 4.1 requires.
  "haxqer-vast/viaplay-freewheel-vast-example.xml": ["vast.inline.ad-serving-id.required"],
  // IMA's "empty" canned response is <VAST/>: neither an ad nor an <Error>.
  "googleads-videojs-ima/test/webdriver/content/canned_ads/empty_vast.xml": ["vast.root.ad-or-error.required"],
};

describe.skipIf(!existsSync(vastDir))("lint on the real VAST corpus", () => {
  const docs = listXml().flatMap((rel) => {
    const parsed = parseXmlDocument(decodeXmlBytes(readFileSync(path.join(vastDir, rel))), { maxDepth: 64, maxElements: 20_000 });
    return parsed.ok ? [{ rel, result: lintDocument(parsed.root) }] : [];
  });

  it("lints every parseable document without a rule failing; every finding points at an element and a line", () => {
    expect(docs.length).toBeGreaterThan(150);
    for (const { rel, result } of docs) {
      expect(result.failedRules, rel).toEqual([]);
      expect(result.rulesRun, rel).toBeGreaterThan(0);
      for (const f of result.findings) {
        expect(f.path, rel).toMatch(/^\/(VAST|VMAP|VideoAdServingTemplate)(\/|$)/);
        expect(f.line, `${rel} ${f.rule}`).toBeGreaterThan(0);
      }
    }
  });

  it("gives no false error on the well-formed real documents: IAB samples 2.0–4.2, IMA canned ads, VAST 4.3", () => {
    const wellFormed = docs.filter((d) => WELL_FORMED.test(d.rel));
    expect(wellFormed.length).toBeGreaterThan(80);
    for (const { rel, result } of wellFormed) {
      const errors = [...new Set(result.findings.filter((f) => f.severity === "error").map((f) => f.rule))].sort();
      expect(errors, rel).toEqual(KNOWN_ERRORS[rel] ?? []);
    }
  });

  it("finds what the corpus parsers' fixtures break on purpose (errors in most of them)", () => {
    // The vast-client/parser fixtures are deliberately incomplete (no Impression, relative wrapper URIs, VAST 1 markup
    // in a 2.0 document): the linter names them.
    const fixtures = docs.filter((d) => !WELL_FORMED.test(d.rel));
    const withErrors = fixtures.filter((d) => d.result.findings.some((f) => f.severity === "error"));
    expect(withErrors.length).toBeGreaterThan(30);
  });
});
