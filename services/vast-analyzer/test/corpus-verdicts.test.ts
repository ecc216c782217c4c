import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestOutcome, type MediaProbe, type ScanResults, type TestResult, type VastReport } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy, silentLogger } from "@cva/platform";
import { describeWithCorpus } from "@cva/platform/testing/index.ts";
import { evaluateVast } from "@cva/spec-sets";
import { createMediaProber } from "../../media-prober/src/index.ts";
import { createVastAnalyzer, type VastAnalyzer } from "../src/index.ts";
import { createSchemaValidator } from "../src/xsd.ts";
import { corpusHandler, corpusRewrite, IMA, listXml, vastDir } from "./corpus-fixture.ts";
import { startFixtureServer, vastJob, type FixtureServer } from "./fixtures.ts";

// Verdicts, not only "parses": every corpus VAST file through the analyzer, the real media prober (ffprobe/ffmpeg on
// the corpus media) and spec set 0. Where a file's media or overlay exists in the corpus (IMA canned ads, the IAB
// samples' VAST-4.0-Short-Intro.mp4) the figures are known from ffprobe/ebur128 run on those files by hand; every other
// host is unreachable here, which is what a player on this machine gets too.

const CANNED = `${IMA}/test/webdriver/content/canned_ads`;

type Scan = { report: VastReport; results: ScanResults };

function result(s: Scan, test: string, group = "xml"): TestResult {
  const r = s.results.tests.find((t) => t.test === test && t.group === group);
  if (!r) throw new Error(`no ${group}/${test}`);
  return r;
}
const outcome = (s: Scan, test: string, group = "xml") => TestOutcome[result(s, test, group).result];

/** Whether a player could show something, judged from the report's measurements (not from the tests). */
function canPlay(r: VastReport): boolean {
  return r.creatives.length > 0 && r.creatives.every((c) =>
    c.type === "nonlinear"
      ? c.nonLinears.some((n) => n.error === "")
      : c.mediafiles.some((m) => m.probe && !m.probe.error && (m.probe.fileInfo?.video || m.probe.fileInfo?.audio) && m.attributes?.apiFramework.toUpperCase() !== "VPAID"),
  );
}

describeWithCorpus("VAST corpus verdicts (real media prober, spec set 0)", "vast", () => {
  let srv: FixtureServer;
  let analyzer: VastAnalyzer;
  let workDir: string;
  const scans = new Map<string, Scan>();

  beforeAll(async () => {
    srv = await startFixtureServer(corpusHandler());
    workDir = await mkdtemp(join(tmpdir(), "cva-vast-verdicts-"));
    // As root the prober runs ffmpeg as an unprivileged user (media-prober exec.ts), which must traverse this folder.
    await chmod(workDir, 0o711);
    const policy = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);
    const prober = createMediaProber({ policy, artifacts: createMemoryArtifactSink(), workDir });
    // The IAB samples name one file three ways, ~100 times over: probe each distinct file once.
    const memo = new Map<string, Promise<MediaProbe>>();
    analyzer = createVastAnalyzer({
      policy, location: "usa", logger: silentLogger(), rewriteUrl: corpusRewrite(srv),
      limits: { pixelTimeoutMs: 2000, fetchTimeoutMs: 5000 },
      schemas: createSchemaValidator(join(vastDir, "iab-vast-schemas")),
      probe: (input) => {
        const key = input.url.split("?")[0]!;
        if (!memo.has(key)) memo.set(key, prober.probe(input));
        return memo.get(key)!;
      },
    });
    for (const rel of listXml()) {
      const report = await analyzer.analyze(vastJob(srv.url(`/vast/${rel}`)));
      scans.set(rel, { report, results: evaluateVast(report, 0) });
    }
  }, 300_000);
  afterAll(async () => {
    await srv?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("no ad that cannot play scores 0 failed, and playable_creatives says which creative and why", () => {
    expect(scans.size).toBeGreaterThan(150);
    let cannot = 0;
    for (const [rel, s] of scans) {
      if (canPlay(s.report)) {
        expect(outcome(s, "playable_creatives"), rel).toBe("PASSED");
        continue;
      }
      cannot++;
      expect(s.results.failed, rel).toBeGreaterThan(0);
      if (s.report.creatives.length === 0) expect(outcome(s, "creative_count"), rel).toBe("FAILED");
      else expect(result(s, "playable_creatives").message, rel).toMatch(/creative \d+ \((Linear|NonLinear)\)/);
    }
    expect(cannot).toBeGreaterThan(100);
  });

  it("every result says why, no value the prober did not measure is judged, and every non-ad says what it is", () => {
    for (const [rel, s] of scans) {
      for (const t of s.results.tests) expect(t.message, `${rel} ${t.group}/${t.test}`).not.toBe("");
      // Everything reachable here was measured: not one test is left "not evaluated" (the schema of a version IAB
      // published none for — 1.0, 4.3 — is not listed at all), so passed + failed counts every listed test.
      const errors = s.results.tests.filter((t) => t.result === TestOutcome.ERROR);
      expect(errors.map((t) => `${t.group}/${t.test}: ${t.message}`), rel).toEqual([]);
      expect(s.results.passed + s.results.failed, rel).toBe(s.results.tests.length);
      for (const c of s.report.creatives) for (const m of c.mediafiles) expect(m.probe?.notMeasured ?? [], rel).toEqual([]);
      if (["invalid", "empty", "unavailable", "vmap", "vast1"].includes(s.report.type) || s.report.creatives.length === 0) {
        expect(s.report.errors.length, rel).toBeGreaterThan(0);
      }
    }
  });

  it("inline VAST 2.0+ first ads without creatives: 9 (was 19), each says why; the 10 NonLinear overlays are reported", () => {
    const inline = [...scans].filter(([, s]) => s.report.type === "inline" && /^[234]/.test(s.report.vastVersion));
    expect(inline).toHaveLength(101);
    const empty = inline.filter(([, s]) => s.report.creatives.length === 0).map(([rel]) => rel);
    expect(empty).toEqual([
      "dailymotion-vast-client-js/empty-no-creative.xml",
      "jonhoo-vast-vmap/test/assets/vast_inline_merge.xml",
      "rs-vast/creative_extensions.xml",
      "rs-vast/inline_extensions.xml",
      "zentrick-iab-vast-loader/ad-pod-tree/vast-a.xml",
      "zentrick-iab-vast-loader/ad-pod-tree/vast-c.xml",
      "zentrick-iab-vast-loader/ad-pod-tree/vast-d.xml",
      "zentrick-iab-vast-loader/ad-pod-tree/vast-e.xml",
      "zentrick-iab-vast-loader/ad-pod-tree/vast-standalone.xml",
    ]);
    for (const rel of empty) expect(scans.get(rel)!.report.errors.join(" "), rel).toMatch(/the inline ad has no Linear or NonLinear creative \(.+\): nothing to play/);
    expect(scans.get("jonhoo-vast-vmap/test/assets/vast_inline_merge.xml")!.report.errors.join(" ")).toContain("CompanionAds only");
    const nonLinearOnly = inline.filter(([, s]) => s.report.creatives.length > 0 && s.report.creatives.every((c) => c.type === "nonlinear"));
    expect(nonLinearOnly.map(([rel]) => rel)).toEqual([
      `${CANNED}/nonlinear.xml`,
      "iab-vast-samples/vast-1-2.0/Inline_NonLinear_VAST2.0.xml",
      "iab-vast-samples/vast-1-2.0/tremor-video/vast2Nonlinear.xml",
      "iab-vast-samples/vast-1-2.0/tremor-video/vast_inline_nonlinear.xml",
      "iab-vast-samples/vast-3.0/Inline_Non-Linear_Tag-test.xml",
      "iab-vast-samples/vast-4.0/Inline_Non-Linear_Tag-test.xml",
      "iab-vast-samples/vast-4.1/Inline_Non-Linear_Tag-test.xml",
      "iab-vast-samples/vast-4.2/Inline_Non-Linear_Tag-test.xml",
      "rs-vast/liverail-vast2-nonlinear.xml",
      "zentrick-iab-vast-parser/strict/unruly/inline/test_vast_inline_123.xml",
    ]);
  });

  it("the ad-pod tree (zentrick vast-a.xml): 5 ads, the 2 wrappers followed to the documents they name", () => {
    const s = scans.get("zentrick-iab-vast-loader/ad-pod-tree/vast-a.xml")!;
    expect(s.report.ads.map((a) => [a.id, a.error === "" ? "analysed" : a.error])).toEqual([
      ["0", "analysed"], ["1", "analysed"], ["2", "analysed"], ["3", "analysed"], ["4", "analysed"],
    ]);
  });

  it("IMA linear.xml: 5 s 640x360 H.264/AAC and VP8/Vorbis, measured: plays; 24 kbps video and 97 kbps AAC fail the IAB rates", () => {
    const s = scans.get(`${CANNED}/linear.xml`)!;
    expect(outcome(s, "playable_creatives")).toBe("PASSED");
    const mp4 = "creative_0_mediafile_0";
    expect(outcome(s, "playable", mp4)).toBe("PASSED");
    expect(result(s, "http_code", mp4).actual).toBe(200);
    expect(result(s, "video_bit_rate", mp4)).toMatchObject({ result: TestOutcome.FAILED });
    expect(result(s, "video_bit_rate", mp4).actual).toBeCloseTo(23.8, 0);
    expect(result(s, "video_bit_rate", mp4).message).toMatch(/^Video Bit Rate: 23\.\d+ kbps, but expected between 500 and 2500 kbps$/);
    expect(result(s, "audio_bit_rate", mp4)).toMatchObject({ result: TestOutcome.FAILED });
    expect(result(s, "audio_bit_rate", mp4).actual).toBeCloseTo(96.7, 0);
    expect(result(s, "loudness", mp4)).toMatchObject({ result: TestOutcome.PASSED });
    expect(result(s, "loudness", mp4).actual).toBeCloseTo(-23.7, 0);
    expect(outcome(s, "duration_match", mp4)).toBe("PASSED");
    const webm = "creative_0_mediafile_1";
    expect(outcome(s, "playable", webm)).toBe("PASSED");
    expect(outcome(s, "video_bit_rate", webm)).toBe("FAILED");
    expect(s.results.tests.some((t) => t.group === webm && t.test === "moov_atom")).toBe(false);
    // 21 + the VAST 3.0 checks it passes: xml_schema, error_url, tracking_events, vpaid (none), unexpanded_macros;
    // and the 15 lint groups: the linter finds no error in IMA's canned linear ad. Its trackers all point at
    // www.example.com, a reserved test domain: tracker_urls fails, naming it.
    expect(s.results.tests.filter((t) => t.test.startsWith("lint_") && t.result !== TestOutcome.PASSED)).toEqual([]);
    expect(result(s, "tracker_urls")).toMatchObject({ result: TestOutcome.FAILED, message: expect.stringContaining("host www.example.com is a reserved test domain") });
    expect({ passed: s.results.passed, failed: s.results.failed }).toEqual({ passed: 41, failed: 6 });
  });

  it("IAB 4.1 Inline_Linear: VAST-4.0-Short-Intro.mp4 (AAC-LC 125.9 kbps, -21.9 LUFS, 929 kbps, 15.16 s of a declared 16 s)", () => {
    const s = scans.get("iab-vast-samples/vast-4.1/Inline_Linear_Tag-test.xml")!;
    expect(outcome(s, "playable_creatives")).toBe("PASSED");
    for (const g of ["creative_0_mediafile_0", "creative_0_mediafile_1", "creative_0_mediafile_2"]) {
      expect(outcome(s, "playable", g)).toBe("PASSED");
      expect(result(s, "audio_bit_rate", g)).toMatchObject({ result: TestOutcome.FAILED, expected: { value: "128#192" } });
      expect(result(s, "audio_bit_rate", g).actual).toBeCloseTo(125.9, 0);
      expect(result(s, "loudness", g).result).toBe(TestOutcome.FAILED);
      expect(result(s, "loudness", g).actual).toBeCloseTo(-21.9, 0);
      expect(result(s, "video_bit_rate", g).result).toBe(TestOutcome.PASSED);
      expect(result(s, "video_bit_rate", g).actual).toBeCloseTo(929, -1);
      expect(result(s, "duration_match", g).result).toBe(TestOutcome.PASSED);
      expect(result(s, "duration_match", g).actual).toBeCloseTo(0.84, 1);
    }
  });

  it("NonLinear: IMA's local 480x70 PNG overlay plays; the IAB sample's overlay host is unreachable and fails, saying so", () => {
    const ima = scans.get(`${CANNED}/nonlinear.xml`)!;
    expect(ima.report.creatives[0]!.nonLinears[0]).toMatchObject({ width: 480, height: 70, resourceType: "static", httpCode: 200, contentType: "image/png", error: "" });
    expect(outcome(ima, "playable_creatives")).toBe("PASSED");
    const iab = scans.get("iab-vast-samples/vast-4.1/Inline_Non-Linear_Tag-test.xml")!;
    expect(iab.report.creatives[0]!.nonLinears[0]).toMatchObject({ width: 350, height: 350, httpCode: 404 });
    expect(outcome(iab, "playable_creatives")).toBe("FAILED");
    expect(result(iab, "playable_creatives").message).toContain("creative 0 (NonLinear): no overlay can be shown: overlay 0: the resource answered HTTP 404");
  });

  it("VPAID-only ads fail as not playable by a player on its own; a chain to unreachable media fails with the HTTP status", () => {
    const vpaid = scans.get("iab-vast-samples/vast-1-2.0/Inline_LinearVAST2vpaid.xml")!;
    expect(outcome(vpaid, "playable_creatives")).toBe("FAILED");
    expect(result(vpaid, "playable_creatives").message).toContain("VPAID/interactive code");
    const chain = scans.get("jonhoo-vast-vmap/test/assets/vast_multiple_wrappers/vast_wrapper_entry.xml")!;
    expect(chain.report.wrapperRedirects).toBe(3);
    expect(result(chain, "playable", "creative_0_mediafile_0").message).toContain("HTTP 404");
  });
});

describe("hand-made ads that cannot play, through the real media prober", () => {
  let srv: FixtureServer;
  let workDir: string;
  beforeAll(async () => {
    srv = await startFixtureServer();
    workDir = await mkdtemp(join(tmpdir(), "cva-vast-hls-"));
    // As root the prober runs ffmpeg as an unprivileged user (media-prober exec.ts), which must traverse this folder.
    await chmod(workDir, 0o711);
    srv.route("/master.m3u8", (_req, res) =>
      res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" })
        .end("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1280000\nlow/index.m3u8\n"));
    srv.route("/imp", (_req, res) => res.writeHead(204).end());
  });
  afterAll(async () => {
    await srv?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  const linear = (mediaFiles: string) => `<?xml version="1.0"?><VAST version="4.1"><Ad id="x"><InLine><AdSystem>Fixture</AdSystem><AdTitle>t</AdTitle>
<Impression>${srv.url("/imp")}</Impression><Creatives><Creative><Linear><Duration>00:00:15</Duration><MediaFiles>${mediaFiles}</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;

  async function scan(path: string): Promise<Scan> {
    const policy = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);
    const prober = createMediaProber({ policy, artifacts: createMemoryArtifactSink(), workDir });
    const a = createVastAnalyzer({ policy, location: "usa", logger: silentLogger(), probe: (input) => prober.probe(input) });
    const report = await a.analyze(vastJob(srv.url(path)));
    return { report, results: evaluateVast(report, 0) };
  }

  it("a Linear with no MediaFile fails (was 9 passed / 0 failed)", async () => {
    srv.xml("/no-media.xml", linear(""));
    const s = await scan("/no-media.xml");
    // cors, ssl (http fixture), playable_creatives; and VAST 4.1's own: no Error URL, no quartile tracking, no
    // UniversalAdId, no Mezzanine; the linter: <MediaFiles> without <MediaFile> (required elements), no UniversalAdId
    // and no AdServingId (4.1 requirements).
    expect(s.results.failed).toBe(9);
    const lintFailed = s.results.tests.filter((t) => t.test.startsWith("lint_") && t.result === TestOutcome.FAILED);
    expect(lintFailed.map((t) => [t.test, t.actual])).toEqual([["lint_required_elements", 1], ["lint_conditional_requirements", 2]]);
    expect(result(s, "lint_required_elements").message).toContain("vast.media-files.media-file.required");
    expect(result(s, "playable_creatives").message).toContain("creative 0 (Linear): no MediaFile");
    expect(s.report.errors).toContain("creative 0 (Linear) has no MediaFile: a player has nothing to play");
  });

  it("an HLS-only ad fails, with the prober's reason on the file and on the ad (was 10 passed / 0 failed)", async () => {
    srv.xml("/hls.xml", linear(`<MediaFile delivery="streaming" type="application/x-mpegURL" width="1280" height="720">${srv.url("/master.m3u8")}</MediaFile>`));
    const s = await scan("/hls.xml");
    const g = "creative_0_mediafile_0";
    expect(s.report.creatives[0]!.mediafiles[0]!.probe!.error).toBe("not a media file: HLS playlist (not followed)");
    expect(outcome(s, "http_code", g)).toBe("PASSED");
    expect(result(s, "playable", g)).toMatchObject({ result: TestOutcome.FAILED, actual: 0 });
    expect(result(s, "playable", g).message).toContain("not a media file: HLS playlist (not followed)");
    expect(outcome(s, "playable_creatives")).toBe("FAILED");
    // No media test turns into an error because of it.
    expect(s.results.tests.filter((t) => t.result === TestOutcome.ERROR && t.group !== "xml")).toEqual([]);
    // cors, ssl, playable, playable_creatives, error_url, tracking_events, universal_ad_id, mezzanine, and
    // lint_conditional_requirements (no UniversalAdId, no AdServingId): an HLS-only ad is valid VAST.
    expect(s.results.failed).toBe(9);
  });
});
